//! Whether huge pages are worth asking for here. Usually they are: a 2 MB page costs one fault
//! where 4 KB pages cost 512. But a virtual machine whose balloon reports free memory to its
//! host (virtio's free page reporting) hands every free block of 2 MB or more back to the host
//! once it has been free for about two seconds, and the host backs it again only when it is
//! next touched, a fault on the host per 4 KB page. Huge pages come from exactly such blocks;
//! small pages come first from the smaller free pieces, which are never reported. On the 2-core
//! development machine (Firecracker, reporting from 2 MB up), 200 MB of fresh memory took
//! 35-60 ms to touch in huge pages right after other memory was freed, 500-740 ms after three
//! seconds idle, and 82-100 ms in 4 KB pages either way; with the reporting turned off in the
//! guest, huge pages took 25-43 ms after idling too (BENCHMARKS.md). So where free pages go to
//! the host, the commands do not ask for huge pages.

use std::sync::atomic::{AtomicU8, Ordering};

/// Not known yet, worth asking, not worth asking.
const UNKNOWN: u8 = 0;
const WORTH: u8 = 1;
const NOT_WORTH: u8 = 2;

static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether to ask for huge pages: not when the system gives its free memory back to a host.
/// Found out once per process (a few small reads of `/sys`); threads that ask at once may
/// each find it out, with the same answer.
pub(super) fn worth_asking() -> bool {
    match STATE.load(Ordering::Relaxed) {
        WORTH => true,
        NOT_WORTH => false,
        _ => {
            let worth = !free_pages_go_to_host();
            STATE.store(if worth { WORTH } else { NOT_WORTH }, Ordering::Relaxed);
            worth
        }
    }
}

/// Whether a virtio balloon with free page reporting is present: a device of type 5 (the
/// balloon) whose feature bit 5 (`VIRTIO_BALLOON_F_REPORTING`) was agreed. Anything that
/// cannot be read counts as no.
fn free_pages_go_to_host() -> bool {
    let Ok(devices) = std::fs::read_dir("/sys/bus/virtio/devices") else {
        return false;
    };
    devices.flatten().any(|device| {
        let read = |name| std::fs::read_to_string(device.path().join(name)).unwrap_or_default();
        reports_free_pages(&read("device"), &read("features"))
    })
}

/// Whether a virtio device of type `device` (its sysfs `device` file, e.g. `0x0005`) with the
/// feature bits `features` (its sysfs `features` file: a `0` or `1` for bit 0, 1, …) is a
/// balloon that reports free pages.
fn reports_free_pages(device: &str, features: &str) -> bool {
    const BALLOON: u32 = 5;
    const REPORTING: usize = 5;
    let device = device.trim();
    let kind = device.strip_prefix("0x").and_then(|hex| u32::from_str_radix(hex, 16).ok());
    kind == Some(BALLOON) && features.as_bytes().get(REPORTING) == Some(&b'1')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_balloon_that_reports_counts() {
        let reporting = "0110010100000000000000000000000010000000\n";
        assert!(reports_free_pages("0x0005\n", reporting));
        assert!(!reports_free_pages("0x0005\n", "0110000100000000000000000000000010000000\n"));
        // A network device (type 1) whose bit 5 is set is no balloon.
        assert!(!reports_free_pages("0x0001\n", "1100010110111011000000000000010010000000\n"));
        assert!(!reports_free_pages("0x0005", "01100"), "too short to hold bit 5");
        assert!(!reports_free_pages("", ""));
        assert!(!reports_free_pages("5", reporting), "sysfs writes the type in hex with 0x");
    }

    /// Asked twice, the same answer (the second from what the first found).
    #[test]
    fn the_answer_is_kept() {
        assert_eq!(worth_asking(), worth_asking());
        assert_eq!(worth_asking(), !free_pages_go_to_host());
    }
}
