complete -c sh-hash -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-hash -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-hash -l seed -d 'Start the hash with this 64-bit seed (decimal or 0x hex)' -r
complete -c sh-hash -l weighted -d 'Items are ITEM:WEIGHT; hash ITEM and keep the weight (HASH:WEIGHT)'
complete -c sh-hash -s q -l quiet -d 'Show no progress and no notes on standard error (this command shows neither; every command takes --quiet, so that scripts can pass it to all)'
complete -c sh-hash -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-hash -s V -l version -d 'Print version'
