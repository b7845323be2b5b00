complete -c sh-score -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-score -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-score -s g -l gold -d 'The gold standard: the pairs that are near duplicates (- for standard input when the pairs to score come from -i FILE)' -r -F
complete -c sh-score -l gold-format -d 'How the gold file lists them' -r -f -a "pairs\t'A<TAB>B: one gold pair per line'
labels\t'ID<TAB>LABEL: every two ids with the same label are a gold pair'"
complete -c sh-score -s k -l distance -d 'Count only predicted pairs at distance K or less (the third field), as if sh-pairs had been run with -k K' -r
complete -c sh-score -s f -l format -d 'How to print the score' -r -f -a "text\t'Aligned columns with a header, ratios to 4 decimals'
tsv\t'TAB-separated columns with a header, ratios in full'
json\t'One JSON object per row'"
complete -c sh-score -l by-distance -d 'One row for each K from 0 to the largest distance in the input (or to --distance): the scores of sh-pairs -k 0, -k 1, … from one run at the largest K'
complete -c sh-score -s q -l quiet -d 'Show no notes on standard error (errors are always shown; this command shows no progress; every command takes --quiet, so that scripts can pass it to all)'
complete -c sh-score -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-score -s V -l version -d 'Print version'
