//! Which TCP ports a job's processes listen on: the socket inodes among their descriptors, matched
//! against the listening sockets of their network namespace (`/proc/<pid>/net/tcp{,6}`, state `0A`).
//!
//! Cost: one directory read per process of the job and one `readlink` per descriptor; the socket
//! tables are read only when some process holds a socket at all, so a build that holds none pays
//! nothing more. The process count and the descriptors looked at are capped.

use std::collections::HashSet;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::process::procfs;

/// Descriptors looked at per look, at most: a look costs what the job holds, within this.
const FD_BUDGET: usize = 4096;
/// Processes looked at per look, at most.
const PROCESS_BUDGET: usize = 256;

/// A call's processes: `root` and the processes of its tree started at or after `since` (clock ticks
/// after boot; 0 for all), at most [`PROCESS_BUDGET`]. `root` always counts: a shell holds no
/// listening socket and reads no input of its own, unless a command replaced it (`exec server`).
pub(crate) fn processes(root: i32, since: u64) -> Vec<i32> {
    let mut pids = vec![root];
    procfs::visit_descendants(root, |pid| {
        if pids.len() >= PROCESS_BUDGET {
            return false;
        }
        if procfs::stat(pid).is_some_and(|e| e.alive && e.start_time.is_none_or(|t| t >= since)) {
            pids.push(pid);
        }
        true
    });
    pids
}

/// The addresses (`127.0.0.1:5173`, `[::]:8080`) that `pids` listen on, in a stable order.
pub(crate) fn listening(pids: &[i32]) -> Vec<String> {
    let mut inodes = HashSet::new();
    let mut budget = FD_BUDGET;
    let mut netns_of = None;
    for &pid in pids {
        let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for entry in dir.flatten() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let Ok(target) = std::fs::read_link(entry.path()) else { continue };
            let Some(inode) = target.to_str().and_then(socket_inode) else { continue };
            inodes.insert(inode);
            netns_of.get_or_insert(pid);
        }
    }
    let Some(pid) = netns_of else { return Vec::new() };
    let mut found = Vec::new();
    for (file, v6) in [("tcp", false), ("tcp6", true)] {
        let Ok(table) = std::fs::read_to_string(format!("/proc/{pid}/net/{file}")) else { continue };
        found.extend(listening_in(&table, v6, &inodes));
    }
    found.sort();
    found.dedup();
    found
}

/// `socket:[12345]` → 12345.
fn socket_inode(target: &str) -> Option<u64> {
    target.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
}

/// The listening sockets of a `/proc/net/tcp{,6}` table whose inode is in `inodes`.
fn listening_in(table: &str, v6: bool, inodes: &HashSet<u64>) -> Vec<String> {
    let mut found = Vec::new();
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        let (Some(local), Some(state), Some(inode)) = (fields.get(1), fields.get(3), fields.get(9)) else { continue };
        if *state != "0A" || !inode.parse::<u64>().is_ok_and(|i| inodes.contains(&i)) {
            continue;
        }
        if let Some(address) = address(local, v6) {
            found.push(address);
        }
    }
    found
}

/// `0100007F:1538` → `127.0.0.1:5432`; the address is in the kernel's byte order, word by word.
fn address(local: &str, v6: bool) -> Option<String> {
    let (host, port) = local.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Option<Vec<u32>> =
        (0..host.len() / 8).map(|i| u32::from_str_radix(host.get(i * 8..i * 8 + 8)?, 16).ok()).collect();
    let bytes: Vec<u8> = words?.into_iter().flat_map(u32::to_ne_bytes).collect();
    match (v6, bytes.len()) {
        (false, 4) => Some(format!("{}:{port}", Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]))),
        (true, 16) => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&bytes);
            let ip = Ipv6Addr::from(octets);
            Some(match ip.to_ipv4_mapped() {
                Some(v4) => format!("{v4}:{port}"),
                None => format!("[{ip}]:{port}"),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_in_the_kernels_byte_order() {
        if cfg!(target_endian = "little") {
            assert_eq!(address("0100007F:1538", false).as_deref(), Some("127.0.0.1:5432"));
            assert_eq!(address("00000000:1F90", false).as_deref(), Some("0.0.0.0:8080"));
            assert_eq!(address("00000000000000000000000000000000:0050", true).as_deref(), Some("[::]:80"));
            assert_eq!(address("00000000000000000000000001000000:0050", true).as_deref(), Some("[::1]:80"));
        }
    }

    #[test]
    fn a_server_this_test_starts_is_found_listening_and_a_sleep_is_not() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = std::process::id() as i32;
        let found = listening(&processes(me, 0));
        assert!(found.contains(&format!("127.0.0.1:{port}")), "{found:?}");
        drop(listener);
        assert!(!listening(&processes(me, 0)).contains(&format!("127.0.0.1:{port}")));
    }
}
