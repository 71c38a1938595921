//! The seal on each line the witness sends: an HMAC-SHA256 under a key the witness made at
//! import and sent as its first line, over the line's number and text. Code under test that
//! writes into the witness's socket (a guessed file descriptor, `os.write`) does not know the
//! key, so its lines do not carry a valid seal.

use sha2::{Digest, Sha256};

/// SHA-256's block size, which HMAC pads the key to.
const BLOCK: usize = 64;
/// How many hex digits of the MAC a line carries (128 bits).
const SEAL_HEX_DIGITS: usize = 32;

/// The key, decoded from the witness's first line.
pub(crate) struct Key(Vec<u8>);

impl Key {
    /// `None` when `hex` is not an even run of hex digits, or is empty.
    pub(crate) fn from_hex(hex: &str) -> Option<Key> {
        if hex.is_empty() || hex.len() % 2 != 0 {
            return None;
        }
        let bytes: Option<Vec<u8>> = (0..hex.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok())
            .collect();
        bytes.map(Key)
    }

    /// The text of `line` when it carries the seal for line number `number`; `None` when not.
    pub(crate) fn open<'a>(&self, number: u64, line: &'a str) -> Option<&'a str> {
        let (seal, text) = line.split_once(' ')?;
        let expected = self.seal(number, text);
        (seal == expected).then_some(text)
    }

    /// The seal the witness puts on `text` as its line `number`.
    pub(crate) fn seal(&self, number: u64, text: &str) -> String {
        let mac = hmac_sha256(&self.0, format!("{number} {text}").as_bytes());
        let hex: String = mac.iter().map(|byte| format!("{byte:02x}")).collect();
        hex[..SEAL_HEX_DIGITS].to_owned()
    }
}

/// HMAC (RFC 2104) over SHA-256: the one use of a MAC here does not warrant a crate.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|key_byte| key_byte ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

#[cfg(test)]
mod tests {
    use super::{hmac_sha256, Key};

    #[test]
    fn the_mac_is_rfc_4231s_hmac_sha256() {
        // RFC 4231, test case 2.
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_line_opens_only_with_its_own_seal_and_number() {
        let key = Key::from_hex("00ff10").unwrap();
        let line = format!("{} {{\"event\": \"x\"}}", key.seal(3, "{\"event\": \"x\"}"));
        assert_eq!(
            [
                key.open(3, &line),
                key.open(4, &line),
                key.open(3, "0123 {\"event\": \"x\"}"),
                key.open(3, "{\"event\": \"x\"}"),
            ],
            [Some("{\"event\": \"x\"}"), None, None, None]
        );
        assert!(Key::from_hex("abc").is_none() && Key::from_hex("zz").is_none());
    }
}
