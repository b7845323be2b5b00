_sh__weight() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="sh__weight"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        sh__weight)
            opts="-i -o -j -q -h -V --input --output --df --max-df --df-floor --idf --max-tf --min-kept --min-run --weighted --capacity --threads --chunk-bytes --quiet --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --df)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-df)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --df-floor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tf)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-kept)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-run)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --capacity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chunk-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _sh__weight -o nosort -o bashdefault -o default sh-weight
else
    complete -F _sh__weight -o bashdefault -o default sh-weight
fi
