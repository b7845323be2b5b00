# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_sh_index_global_optspecs
    string join \n q/quiet h/help V/version
end

function __fish_sh_index_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_sh_index_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_sh_index_using_subcommand
    set -l cmd (__fish_sh_index_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c sh-index -n "__fish_sh_index_needs_command" -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-index -n "__fish_sh_index_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-index -n "__fish_sh_index_needs_command" -s V -l version -d 'Print version'
complete -c sh-index -n "__fish_sh_index_needs_command" -f -a "build" -d 'Write a new index of the input\'s records'
complete -c sh-index -n "__fish_sh_index_needs_command" -f -a "add" -d 'Add the input\'s records to an index, as a new segment'
complete -c sh-index -n "__fish_sh_index_needs_command" -f -a "compact" -d 'Rewrite an index as one segment'
complete -c sh-index -n "__fish_sh_index_needs_command" -f -a "query" -d 'Write the indexed records within K bits of each input record'
complete -c sh-index -n "__fish_sh_index_needs_command" -f -a "stats" -d 'Print what an index holds: records, segments, K, tables and bytes'
complete -c sh-index -n "__fish_sh_index_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c sh-index -n "__fish_sh_index_using_subcommand build" -s o -l output -d 'The index directory to write' -r -F
complete -c sh-index -n "__fish_sh_index_using_subcommand build" -s k -l k -d 'The largest K queries may use [default: 6, sh-pairs\' default]' -r
complete -c sh-index -n "__fish_sh_index_using_subcommand build" -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-index -n "__fish_sh_index_using_subcommand build" -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-index -n "__fish_sh_index_using_subcommand build" -s h -l help -d 'Print help'
complete -c sh-index -n "__fish_sh_index_using_subcommand add" -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-index -n "__fish_sh_index_using_subcommand add" -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-index -n "__fish_sh_index_using_subcommand add" -s h -l help -d 'Print help'
complete -c sh-index -n "__fish_sh_index_using_subcommand compact" -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-index -n "__fish_sh_index_using_subcommand compact" -s h -l help -d 'Print help'
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -s k -l k -d 'Report records within K bits (at most the index\'s K) [default: the index\'s K]' -r
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -s j -l threads -d 'Answer with N threads when many queries are waiting [default: all cores]' -r
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -l end-marker -d 'After the answers to each input line (one without a fingerprint too), write a line with a single \'.\', so that a program reading through a pipe knows the answer is complete'
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -l stats -d 'At the end, print on standard error how many queries were answered, how fast, and the median, 99th percentile and largest time of an answer'
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-index -n "__fish_sh_index_using_subcommand query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-index -n "__fish_sh_index_using_subcommand stats" -l verify -d 'Also check every block\'s checksum (reads the whole index)'
complete -c sh-index -n "__fish_sh_index_using_subcommand stats" -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-index -n "__fish_sh_index_using_subcommand stats" -s h -l help -d 'Print help'
complete -c sh-index -n "__fish_sh_index_using_subcommand help; and not __fish_seen_subcommand_from build add compact query stats help" -f -a "build" -d 'Write a new index of the input\'s records'
complete -c sh-index -n "__fish_sh_index_using_subcommand help; and not __fish_seen_subcommand_from build add compact query stats help" -f -a "add" -d 'Add the input\'s records to an index, as a new segment'
complete -c sh-index -n "__fish_sh_index_using_subcommand help; and not __fish_seen_subcommand_from build add compact query stats help" -f -a "compact" -d 'Rewrite an index as one segment'
complete -c sh-index -n "__fish_sh_index_using_subcommand help; and not __fish_seen_subcommand_from build add compact query stats help" -f -a "query" -d 'Write the indexed records within K bits of each input record'
complete -c sh-index -n "__fish_sh_index_using_subcommand help; and not __fish_seen_subcommand_from build add compact query stats help" -f -a "stats" -d 'Print what an index holds: records, segments, K, tables and bytes'
complete -c sh-index -n "__fish_sh_index_using_subcommand help; and not __fish_seen_subcommand_from build add compact query stats help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
