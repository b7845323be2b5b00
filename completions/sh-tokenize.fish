complete -c sh-tokenize -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-tokenize -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-tokenize -s m -l mode -d 'How to cut text into tokens' -r -f -a "words\t'Runs of letters, digits and combining marks; each Han, Hiragana or Katakana character is a token of its own'
alpha\t'Like words, but digits separate tokens'
ascii\t'Runs of the ASCII letters A-Z and a-z; every other byte separates tokens'
space\t'Runs of anything but whitespace'
chars\t'Every character but whitespace, with the combining marks that follow it'"
complete -c sh-tokenize -l text-field -d 'With --json, the field that holds the text' -r
complete -c sh-tokenize -l id-field -d 'With --json, the field that holds the id (a string or an integer)' -r
complete -c sh-tokenize -l keep-case -d 'Keep tokens as they are instead of lowercasing them'
complete -c sh-tokenize -l with-id -d 'Read ID<TAB>TEXT lines and put each id in front of its tokens'
complete -c sh-tokenize -l json -d 'Read one JSON object per line'
complete -c sh-tokenize -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-tokenize -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-tokenize -s V -l version -d 'Print version'
