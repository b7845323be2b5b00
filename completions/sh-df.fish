complete -c sh-df -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-df -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-df -l capacity -d 'Hold at most N items; beyond that, counts are heavy-hitter estimates (see above)' -r
complete -c sh-df -l merge -d 'Add up these tables (of sh-df runs over shards) instead of reading documents' -r -F
complete -c sh-df -s j -l threads -d 'Count a large file (not a pipe) in up to N parts at once, one table each; sort and write a large table on up to N threads [default: all cores]' -r
complete -c sh-df -l weighted -d 'Items are ITEM:WEIGHT (as sh-hash --weighted writes them); ITEM is counted'
complete -c sh-df -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-df -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-df -s V -l version -d 'Print version'
