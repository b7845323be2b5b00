//! Integration tests of sh-shingle through the built binary.
