complete -c sh-compute -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-compute -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-compute -l bits -d 'Fingerprint width: 64 (decimal), 128 or 256 (0x and N/4 hex digits)' -r
complete -c sh-compute -s j -l threads -d 'Compute on N threads, the output in input order [default: 1]' -r
complete -c sh-compute -l chunk-bytes -d 'Bytes of input per chunk of lines handed to a thread (for tests of the ordering)' -r
complete -c sh-compute -s q -l quiet -d 'Show no notes on standard error (errors are always shown; this command shows no progress; every command takes --quiet, so that scripts can pass it to all)'
complete -c sh-compute -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-compute -s V -l version -d 'Print version'
