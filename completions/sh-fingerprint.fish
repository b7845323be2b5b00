complete -c sh-fingerprint -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-fingerprint -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-fingerprint -s m -l mode -d 'How to cut text into tokens (sh-tokenize --mode)' -r -f -a "words\t'Runs of letters, digits and combining marks; each Han, Hiragana or Katakana character is a token of its own'
alpha\t'Like words, but digits separate tokens'
ascii\t'Runs of the ASCII letters A-Z and a-z; every other byte separates tokens'
space\t'Runs of anything but whitespace'
chars\t'Every character but whitespace, with the combining marks that follow it'"
complete -c sh-fingerprint -l text-field -d 'With --json, the field that holds the text' -r
complete -c sh-fingerprint -l id-field -d 'With --json, the field that holds the id (a string or an integer)' -r
complete -c sh-fingerprint -s w -l window -d 'Tokens per shingle (sh-shingle --window)' -r
complete -c sh-fingerprint -l seed -d 'Start the hash with this 64-bit seed, decimal or 0x hex (sh-hash --seed)' -r
complete -c sh-fingerprint -l df -d 'Apply the document-frequency table of the corpus, as sh-df writes it (sh-weight --df)' -r -F
complete -c sh-fingerprint -l max-df -d 'With --df, leave out items found in more than this fraction of the documents' -r
complete -c sh-fingerprint -l df-floor -d 'With --df, never leave out an item found in N documents or fewer' -r
complete -c sh-fingerprint -l max-tf -d 'With --df, keep at most N occurrences of an item in one document (0: every occurrence)' -r
complete -c sh-fingerprint -l min-kept -d 'With --df, a document of which less than the fraction F of the items would be kept keeps them all (where a run left out covers over half of it: of the rest, at most 4 kept in a row)' -r
complete -c sh-fingerprint -l min-run -d 'With --df, leave out a common item only where at least N common items stand in a row (1: wherever it stands)' -r
complete -c sh-fingerprint -l capacity -d 'With --df, hold at most N items of the table' -r
complete -c sh-fingerprint -l bits -d 'Fingerprint width: 64 (decimal), 128 or 256 (0x and N/4 hex digits)' -r
complete -c sh-fingerprint -s j -l threads -d 'Fingerprint on N threads [default: all cores]' -r
complete -c sh-fingerprint -l chunk-bytes -d 'Bytes of input per chunk of lines handed to a thread (for tests of the ordering)' -r
complete -c sh-fingerprint -l keep-case -d 'Keep tokens as they are instead of lowercasing them'
complete -c sh-fingerprint -l with-id -d 'Read ID<TAB>TEXT lines and put each id in front of its fingerprint'
complete -c sh-fingerprint -l json -d 'Read one JSON object per line'
complete -c sh-fingerprint -l idf -d 'With --df, weigh every item kept by ln(N / df)'
complete -c sh-fingerprint -l weighted -d 'sh-hash --weighted, which has no counterpart here (refused with a usage error)'
complete -c sh-fingerprint -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-fingerprint -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-fingerprint -s V -l version -d 'Print version'
