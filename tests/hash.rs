//! Integration tests of sh-hash through the built binary.
