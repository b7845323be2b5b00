_sh__fingerprint() {
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
                cmd="sh__fingerprint"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        sh__fingerprint)
            opts="-i -o -m -w -j -q -h -V --input --output --mode --keep-case --with-id --json --text-field --id-field --window --seed --df --max-df --df-floor --idf --max-tf --min-kept --min-run --capacity --bits --threads --chunk-bytes --weighted --quiet --help --version"
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
                --mode)
                    COMPREPLY=($(compgen -W "words alpha ascii space chars" -- "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -W "words alpha ascii space chars" -- "${cur}"))
                    return 0
                    ;;
                --text-field)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id-field)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seed)
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
                --bits)
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
    complete -F _sh__fingerprint -o nosort -o bashdefault -o default sh-fingerprint
else
    complete -F _sh__fingerprint -o bashdefault -o default sh-fingerprint
fi
