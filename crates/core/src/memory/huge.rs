//! Whether huge pages are worth asking for here. Usually they are: a 2 MB page costs one fault
//! where 4 KB pages cost 512. But a virtual machine whose balloon reports free memory to its
//! host (virtio's free page reporting) hands every free block of the reporting order or more
//! (2 MB by default) back to the host once it has been free a while (about two seconds on the
//! development machine), and the host backs it again only when it is next touched, a fault on
//! the host per 4 KB page. Huge pages come from exactly such blocks; small pages come first
//! from the smaller free pieces, which are never reported. On the 2-core development machine
//! (Firecracker, reporting from 2 MB up), 200 MB of fresh memory took 35-60 ms to touch in huge
//! pages right after other memory was freed, 500-740 ms after three seconds idle, and 82-129
//! ms in 4 KB pages either way; with the reporting turned off in the guest, huge pages took
//! 25-43 ms after idling too (BENCHMARKS.md). So where free huge pages go to the host, the
//! commands ask for 4 KB pages instead (which matters where the system gives huge pages
//! unasked: transparent huge pages `always`).
//!
//! This is found out inside the global allocator, on its first large block, so it allocates
//! nothing of Rust's: files are opened and read with the system's calls into buffers on the
//! stack (the directory listing is the C library's), and a thread that asks while another is
//! finding out is told "not worth it" at once.

use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicU8, Ordering};

use nix::dir::Dir;
use nix::fcntl::{open, openat, OFlag};
use nix::sys::stat::Mode;

/// Not known yet, being found out, worth asking, not worth asking.
const UNKNOWN: u8 = 0;
const PROBING: u8 = 1;
const WORTH: u8 = 2;
const NOT_WORTH: u8 = 3;

static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Where the virtio devices are listed, and the smallest block the kernel reports (a page
/// order: 9 is 2 MB of 4 KB pages).
const DEVICES: &str = "/sys/bus/virtio/devices";
const REPORTING_ORDER: &str = "/sys/module/page_reporting/parameters/page_reporting_order";
/// The order of a huge page, and the largest order of x86-64's page allocator (the number of
/// free-list columns of `/proc/buddyinfo` tells it where it differs).
const HUGE_PAGE_ORDER: u32 = 9;
const DEFAULT_MAX_ORDER: u32 = 10;

/// Whether to ask for huge pages: not when the system gives its free huge pages back to a
/// host. Found out once per process.
pub(super) fn worth_asking() -> bool {
    match STATE.compare_exchange(UNKNOWN, PROBING, Ordering::Acquire, Ordering::Acquire) {
        Ok(_) => {
            let worth = !free_huge_pages_go_to_host();
            STATE.store(if worth { WORTH } else { NOT_WORTH }, Ordering::Release);
            worth
        }
        Err(state) => state == WORTH,
    }
}

/// Whether a virtio balloon reports free memory to the host in the blocks that huge pages are
/// taken from. Anything that cannot be read counts as no balloon.
fn free_huge_pages_go_to_host() -> bool {
    if !reporting_balloon() {
        return false;
    }
    let mut text = [0u8; 256];
    // Without the parameter (a kernel that names it otherwise), the kernel's default: 2 MB.
    let order = read_file(None, REPORTING_ORDER.as_bytes(), &mut text)
        .map_or(Some(HUGE_PAGE_ORDER), parse_u32);
    let max_order = read_file(None, b"/proc/buddyinfo", &mut text)
        .and_then(largest_order)
        .unwrap_or(DEFAULT_MAX_ORDER);
    order.is_some_and(|order| huge_page_blocks_reported(order, max_order))
}

/// Whether reporting the free blocks of `order` and more reaches those that huge pages are
/// taken from: the huge page's own order, or the larger ones split for it. An order above the
/// largest the page allocator has reports nothing.
fn huge_page_blocks_reported(order: u32, max_order: u32) -> bool {
    order <= max_order.max(HUGE_PAGE_ORDER)
}

/// Whether one of the virtio devices is a balloon that agreed to report free pages.
fn reporting_balloon() -> bool {
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let Ok(devices) = open(DEVICES, flags, Mode::empty()) else {
        return false;
    };
    let Ok(mut listing) = Dir::openat(devices.as_fd(), ".", flags, Mode::empty()) else {
        return false;
    };
    let devices = devices.as_fd();
    let found = listing.iter().map_while(Result::ok).any(|entry| {
        let name = entry.file_name().to_bytes();
        let (mut path, mut text) = ([0u8; 320], [0u8; 256]);
        let is_balloon = join(name, b"device", &mut path)
            .and_then(|path| read_file(Some(devices), path, &mut text))
            .is_some_and(is_balloon);
        is_balloon
            && join(name, b"features", &mut path)
                .and_then(|path| read_file(Some(devices), path, &mut text))
                .is_some_and(reports_free_pages)
    });
    found
}

/// `name/leaf` in `buffer`, when it fits.
fn join<'a>(name: &[u8], leaf: &[u8], buffer: &'a mut [u8]) -> Option<&'a [u8]> {
    let len = name.len() + 1 + leaf.len();
    let path = buffer.get_mut(..len)?;
    path[..name.len()].copy_from_slice(name);
    path[name.len()] = b'/';
    path[name.len() + 1..].copy_from_slice(leaf);
    Some(path)
}

/// The first bytes of the file at `path` (relative to `directory` when given), as much of
/// it as one read brings into `buffer`: all of a small file of `/sys` or `/proc`. Opened
/// so that nothing waits (a pipe or a device where a file was expected).
fn read_file<'a>(
    directory: Option<BorrowedFd>,
    path: &[u8],
    buffer: &'a mut [u8],
) -> Option<&'a [u8]> {
    let flags = OFlag::O_RDONLY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK | OFlag::O_NOCTTY;
    let file = match directory {
        Some(directory) => openat(directory, path, flags, Mode::empty()),
        None => open(path, flags, Mode::empty()),
    }
    .ok()?;
    let n = nix::unistd::read(&file, buffer).ok()?;
    Some(&buffer[..n])
}

/// Whether a virtio device's `device` file (`0x0005` and a newline) names a balloon.
fn is_balloon(device: &[u8]) -> bool {
    const BALLOON: u32 = 5;
    let hex = std::str::from_utf8(device).ok().and_then(|t| t.trim().strip_prefix("0x"));
    hex.and_then(|hex| u32::from_str_radix(hex, 16).ok()) == Some(BALLOON)
}

/// Whether a virtio device's `features` file (a `0` or `1` for bit 0, 1, …) has bit 5,
/// a balloon's free page reporting.
fn reports_free_pages(features: &[u8]) -> bool {
    const REPORTING: usize = 5;
    features.get(REPORTING) == Some(&b'1')
}

fn parse_u32(text: &[u8]) -> Option<u32> {
    std::str::from_utf8(text).ok()?.trim().parse().ok()
}

/// The largest page order of `/proc/buddyinfo` (`Node 0, zone DMA` and a count of free
/// blocks per order from 0): one less than the counts of its first whole line.
fn largest_order(buddyinfo: &[u8]) -> Option<u32> {
    let line = &buddyinfo[..memchr::memchr(b'\n', buddyinfo)?];
    let line = std::str::from_utf8(line).ok()?;
    let counts = line.split_whitespace().skip(4).filter(|word| word.parse::<u64>().is_ok()).count();
    u32::try_from(counts).ok()?.checked_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `features` file as the kernel writes it: 128 bits, the first as given, the rest 0.
    fn features(first: &str) -> Vec<u8> {
        format!("{first:0<128}\n").into_bytes()
    }

    /// The development machine's balloon and network device (the rest of their bits are 0).
    const BALLOON: &str = "0110010100000000000000000000000010000000";
    const NETWORK: &str = "1100010110111011000000000000010010000000";

    #[test]
    fn only_a_balloon_that_reports_counts() {
        assert!(is_balloon(b"0x0005\n"));
        assert!(!is_balloon(b"0x0001\n"), "a network device");
        assert!(!is_balloon(b"5\n"), "sysfs writes the type in hex with 0x");
        assert!(!is_balloon(b""));
        assert!(reports_free_pages(&features(BALLOON)));
        let mut without = features(BALLOON);
        without[5] = b'0';
        assert!(!reports_free_pages(&without));
        assert!(!reports_free_pages(b"01100"), "too short to hold bit 5");
        // Bit 5 of a network device means something else: only a balloon's counts.
        assert!(reports_free_pages(&features(NETWORK)) && !is_balloon(b"0x0001\n"));
    }

    #[test]
    fn reporting_reaches_huge_pages_up_to_the_largest_order() {
        assert!(huge_page_blocks_reported(9, 10), "the default: from 2 MB up");
        assert!(huge_page_blocks_reported(10, 10), "4 MB blocks are split for huge pages");
        assert!(huge_page_blocks_reported(5, 10));
        assert!(!huge_page_blocks_reported(11, 10), "reporting off: above the largest order");
        assert!(huge_page_blocks_reported(12, 12) && !huge_page_blocks_reported(13, 12));
    }

    #[test]
    fn the_files_are_read_as_the_kernel_writes_them() {
        let buddyinfo = concat!(
            "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1",
            "      1      3 \nNode 0, zone   Normal   7707   6668"
        );
        let buddyinfo = buddyinfo.as_bytes();
        assert_eq!(largest_order(buddyinfo), Some(10));
        assert_eq!(largest_order(b"Node 0, zone DMA 1 2 3"), None, "no whole line");
        assert_eq!(largest_order(b"Node 0, zone DMA\n"), None);
        assert_eq!(parse_u32(b"9\n"), Some(9));
        assert_eq!(parse_u32(b"x\n"), None);
        let mut buffer = [0u8; 320];
        assert_eq!(join(b"virtio0", b"features", &mut buffer), Some(&b"virtio0/features"[..]));
        assert_eq!(join(&[b'a'; 400], b"device", &mut buffer), None);
    }

    /// The files read another way (the standard library's, which allocates): the same answer.
    #[test]
    fn the_files_read_another_way_say_the_same() {
        let read = |path: std::path::PathBuf| std::fs::read(path).unwrap_or_default();
        let balloon = std::fs::read_dir(DEVICES).into_iter().flatten().flatten().any(|device| {
            let (kind, features) =
                (read(device.path().join("device")), read(device.path().join("features")));
            kind.trim_ascii() == b"0x0005" && features.get(5) == Some(&b'1')
        });
        let order = parse_u32(&read(REPORTING_ORDER.into())).unwrap_or(HUGE_PAGE_ORDER);
        let buddyinfo = String::from_utf8(read("/proc/buddyinfo".into())).unwrap_or_default();
        let columns = buddyinfo.lines().next().map(|line| line.split_whitespace().count() - 4);
        let max_order = columns.map_or(DEFAULT_MAX_ORDER, |n| n as u32 - 1);
        let reported = balloon && order <= max_order.max(HUGE_PAGE_ORDER);
        assert_eq!(free_huge_pages_go_to_host(), reported);
    }

    /// Asked again, the answer found the first time; and it is what the files say.
    #[test]
    fn the_answer_is_kept() {
        let first = worth_asking();
        assert_eq!(worth_asking(), first);
        assert_eq!(first, !free_huge_pages_go_to_host());
    }
}
