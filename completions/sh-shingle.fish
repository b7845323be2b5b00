complete -c sh-shingle -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-shingle -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-shingle -s w -l window -d 'Tokens per shingle (2 found the most near duplicates in our evaluation, docs/QUALITY.md)' -r
complete -c sh-shingle -s q -l quiet -d 'Show no progress and no notes on standard error (this command shows neither; every command takes --quiet, so that scripts can pass it to all)'
complete -c sh-shingle -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-shingle -s V -l version -d 'Print version'
