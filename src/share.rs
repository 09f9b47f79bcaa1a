//! The share-state codec: what the page puts in a link's `#fragment` or in a share file.
//!
//! A fragment is `v1.` followed by base64url (no padding) of `raw deflate(JSON of ShareState)` and a 4-byte
//! big-endian CRC-32 of those deflate bytes. The fragment never reaches a server (browsers do not send it), but
//! links are pasted into tickets and chats, so Secret values are masked before encoding
//! ([`crate::secret_mask::mask_secrets_in_text`]).
//!
//! The CRC-32 is there because raw deflate has no check of its own: a link damaged by a ticket system (a character
//! changed or lost) could otherwise inflate to *different* manifests and show drift that does not exist. CRC-32
//! catches every change of up to 32 consecutive bits, so every single changed character; a lost tail is caught by
//! the deflate stream ending early or, failing that, by the CRC.
//!
//! Decoding is total and bounded: it never panics, refuses input whose base64 alone would exceed the inflate cap,
//! and inflates at most [`MAX_INFLATED`] bytes.

#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::fmt;

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use miniz_oxide::inflate::TINFLStatus;

use crate::secret_mask::{mask_secrets_in_text, Masks};

/// Everything a link or share file carries to reopen an analysis.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, Default)]
#[serde(default)]
pub struct ShareState {
    /// "sides" (git + live) or "diff" (pasted diff text)
    pub mode: String,
    /// The Git side's text (sides mode).
    pub git: String,
    /// The live side's text (sides mode).
    pub live: String,
    /// The pasted diff text (diff mode).
    pub diff: String,
    /// The Application's destination namespace, if given.
    pub namespace: String,
    /// Options as name -> value, sorted; defaults are left out. The page and the CLI's `link` write the same keys:
    /// "strategy" -> a [`crate::Strategy::id`] ("server-side-apply", "server-side-diff", or "legacy" when the page's
    /// user chose it over the Application's; absent: the Application's own, legacy without one),
    /// "ignoreAggregatedRoles" -> "true", "argocdVersion" -> the Argo CD release imitated (`MAJOR.MINOR`) when it is
    /// not the newest ([`crate::argocd_release::NEWEST`]), "argocdSettings" -> the pasted Application and/or argocd-cm YAML (the CLI
    /// joins its `--app` and `--argocd-cm` files with "\n---\n"), read with [`crate::settings::apply_user_settings`].
    /// Readers ignore keys they do not know.
    pub options: BTreeMap<String, String>,
    /// The resource id the sender had selected, if any.
    pub selected: Option<String>,
}

/// Key of [`ShareState::options`]: the comparison strategy.
pub const OPTION_STRATEGY: &str = "strategy";
/// Key of [`ShareState::options`]: argocd-cm `ignoreAggregatedRoles`.
pub const OPTION_AGGREGATED_ROLES: &str = "ignoreAggregatedRoles";
/// Key of [`ShareState::options`]: the pasted Argo CD settings.
pub const OPTION_SETTINGS: &str = "argocdSettings";
/// Key of [`ShareState::options`]: the pasted Application with its status.
pub const OPTION_APPLICATION: &str = "application";
/// Key of [`ShareState::options`]: a second render of the same commit.
pub const OPTION_GIT_AGAIN: &str = "gitAgain";
/// Key of [`ShareState::options`]: the pasted events, a JSON array of texts
/// (one per input), credentials masked.
pub const OPTION_EVENTS: &str = "events";
/// Key of [`ShareState::options`]: the pasted logs, as [`OPTION_EVENTS`].
pub const OPTION_LOGS: &str = "logs";
/// The share-link option holding the Argo CD release the analysis imitates.
pub const OPTION_ARGOCD_VERSION: &str = "argocdVersion";

impl ShareState {
    /// Record what `request` asks for and the pasted settings, leaving
    /// defaults out so that links stay short (the page and `drift-doctor
    /// link` both write them this way). The strategy is written as
    /// [`crate::Request::strategy_to_share`] says, `with_application` when
    /// the link also carries an Application.
    pub fn set_request(
        &mut self,
        request: &crate::Request,
        settings: &str,
        with_application: bool,
    ) {
        self.namespace = request.namespace.clone().unwrap_or_default();
        if let Some(strategy) = request.strategy_to_share(with_application) {
            self.options
                .insert(OPTION_STRATEGY.into(), strategy.id().to_string());
        }
        if request.ignore_aggregated_roles {
            self.options
                .insert(OPTION_AGGREGATED_ROLES.into(), "true".into());
        }
        if !settings.trim().is_empty() {
            self.options
                .insert(OPTION_SETTINGS.into(), settings.to_string());
        }
        self.set_release(request.release);
    }

    /// What the link asks for; a value this build cannot read is left at
    /// its default, so a newer page's link still opens.
    pub fn request(&self) -> crate::Request {
        let namespace = self.namespace.trim();
        crate::Request {
            namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
            strategy: crate::Strategy::from_id(&self.option(OPTION_STRATEGY)),
            release: self.release(),
            ignore_aggregated_roles: self.option(OPTION_AGGREGATED_ROLES) == "true",
            include_hidden: false,
        }
    }

    /// Record the Application and the second render the analysis had, left
    /// out when empty.
    pub fn set_evidence(&mut self, application: &str, git_again: &str) {
        for (key, text) in [
            (OPTION_APPLICATION, application),
            (OPTION_GIT_AGAIN, git_again),
        ] {
            if text.trim().is_empty() {
                self.options.remove(key);
            } else {
                self.options.insert(key.into(), text.to_string());
            }
        }
    }

    /// Record the events and logs the analysis had, one text per input,
    /// left out when there are none.
    pub fn set_observed(&mut self, events: &[String], logs: &[String]) {
        for (key, texts) in [(OPTION_EVENTS, events), (OPTION_LOGS, logs)] {
            let texts: Vec<&String> = texts.iter().filter(|t| !t.trim().is_empty()).collect();
            if texts.is_empty() {
                self.options.remove(key);
            } else {
                self.options.insert(
                    key.into(),
                    serde_json::to_string(&texts).unwrap_or_default(),
                );
            }
        }
    }

    /// The events and logs a link carries, one text per input (a value that
    /// is not a JSON array of texts is one text).
    pub fn observed_texts(&self) -> (Vec<String>, Vec<String>) {
        let texts = |key: &str| -> Vec<String> {
            match self.options.get(key) {
                None => Vec::new(),
                Some(v) => {
                    serde_json::from_str::<Vec<String>>(v).unwrap_or_else(|_| vec![v.clone()])
                }
            }
        };
        (texts(OPTION_EVENTS), texts(OPTION_LOGS))
    }

    /// Record the Argo CD release imitated, left out when it is the newest.
    fn set_release(&mut self, release: crate::ArgoCdRelease) {
        if release == crate::argocd_release::NEWEST {
            self.options.remove(OPTION_ARGOCD_VERSION);
        } else {
            self.options
                .insert(OPTION_ARGOCD_VERSION.into(), release.to_string());
        }
    }

    /// The Argo CD release the sender imitated: the newest when the link
    /// names none, or names one this build cannot read.
    pub fn release(&self) -> crate::ArgoCdRelease {
        self.options
            .get(OPTION_ARGOCD_VERSION)
            .and_then(|v| crate::ArgoCdRelease::parse(v).ok())
            .unwrap_or_default()
    }

    /// An option's value, empty when absent.
    pub fn option(&self, key: &str) -> String {
        self.options.get(key).cloned().unwrap_or_default()
    }
}

/// The link format written (`v1.`); a link of a later one is refused.
pub const SHARE_FORMAT_VERSION: u32 = 1;

/// Fragments longer than this are not offered as links; the page offers a share file instead.
///
/// 16 KiB of fragment text. The fragment is never sent to a server, so HTTP request-line limits (often 8 KiB) do
/// not apply, and browsers accept far longer URLs (Chromium: 2 MiB, but it shows only the first 32 KiB). What limits
/// a link is where people paste it: Jira text fields and comments hold 32,767 characters by default, a Microsoft
/// Teams message about 28 KB, a Slack message 40,000 characters, a GitHub comment 65,536. 16 KiB leaves room for
/// the base URL and the words around the link in all of these, while the git and live manifests of a typical
/// resource set (tens of KB of YAML, highly repetitive) deflate to a few KB and so still fit.
pub const MAX_LINK_FRAGMENT: usize = 16 * 1024;

/// Decoding refuses to inflate past this many bytes.
pub const MAX_INFLATED: usize = 64 * 1024 * 1024;

/// The key (and version) that marks a share file.
pub const SHARE_FILE_KEY: &str = "drift-doctor-share";
const SHARE_FILE_VERSION: u64 = 1;

/// deflate level: 9 is miniz's best standard level; "uber" (10) is much slower for little gain.
const DEFLATE_LEVEL: u8 = 9;

/// URL-safe alphabet, padding tolerated (some tools add it), non-canonical trailing bits refused (so that a
/// changed last character is an error, not a silent no-op).
const LINK_B64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Why a link or share file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareError {
    /// Nothing was given.
    Empty,
    /// The text does not start with `v<number>.`.
    NotAShareLink,
    /// A later format than this build reads.
    NewerFormat {
        /// The link's format.
        found: u32,
    },
    /// A version that never existed (`v0.`).
    UnknownFormat {
        /// The link's format.
        found: u32,
    },
    /// Characters outside base64url, or a length base64 cannot have.
    BadBase64,
    /// Too short to hold any state.
    Truncated,
    /// The CRC-32 does not match: the link was changed or cut.
    ChecksumMismatch,
    /// The deflate stream is damaged.
    CorruptData,
    /// The state would inflate past [`MAX_INFLATED`].
    TooLarge {
        /// [`MAX_INFLATED`].
        limit: usize,
    },
    /// The inflated text is not a share state (with serde_json's reason).
    BadContent(String),
    /// A `{...}` share file that is not ours or is damaged (with the reason).
    BadShareFile(String),
    /// A share file of a later format.
    NewerShareFile {
        /// The file's format.
        found: u64,
    },
}

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShareError::Empty => write!(f, "There is nothing to open: the link or share file is empty."),
            ShareError::NotAShareLink => write!(
                f,
                "This is not a drift-doctor share link: the part after '#' should start with \"v{SHARE_FORMAT_VERSION}.\"."
            ),
            ShareError::NewerFormat { found } => write!(
                f,
                "This link was made by a newer drift-doctor (format {found}); this page reads format {SHARE_FORMAT_VERSION}."
            ),
            ShareError::UnknownFormat { found } => write!(
                f,
                "This link names share format {found}, which no drift-doctor ever wrote; this page reads format {SHARE_FORMAT_VERSION}."
            ),
            ShareError::BadBase64 => write!(
                f,
                "This link is damaged: it contains characters or a length that a drift-doctor link cannot have. Copy the whole link again."
            ),
            ShareError::Truncated => {
                write!(f, "This link is incomplete: it was cut off. Copy the whole link again, or ask for a share file.")
            }
            ShareError::ChecksumMismatch => write!(
                f,
                "This link is damaged or incomplete (its checksum does not match). Copy the whole link again, or ask for a share file."
            ),
            ShareError::CorruptData => {
                write!(f, "This link is damaged: its compressed data cannot be read. Copy the whole link again.")
            }
            ShareError::TooLarge { limit } => write!(
                f,
                "This link expands to more than {} MiB, more than drift-doctor opens.",
                limit / (1024 * 1024)
            ),
            ShareError::BadContent(why) => {
                write!(f, "This link holds data that is not a drift-doctor state ({why}).")
            }
            ShareError::BadShareFile(why) => write!(f, "This is not a drift-doctor share file ({why})."),
            ShareError::NewerShareFile { found } => write!(
                f,
                "This share file was made by a newer drift-doctor (share file format {found}); this page reads format {SHARE_FILE_VERSION}."
            ),
        }
    }
}

impl std::error::Error for ShareError {}

/// CRC-32 (IEEE 802.3, as in zip and PNG).
fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// The state with Secret values masked in its texts, and how many were masked.
///
/// One numbering covers the whole state (masks already in it keep their numbers), in the order git, live, diff,
/// settings: the order in which [`crate::analyze()`] numbers the report's masks, so the link shows what the sender saw.
/// The Argo CD settings are masked too (an `argocd-secret` pasted there holds Secret data).
pub fn mask_state(state: &ShareState) -> (ShareState, usize) {
    let mut out = state.clone();
    let settings = state
        .options
        .get(OPTION_SETTINGS)
        .map_or("", String::as_str);
    let option = |key: &str| state.options.get(key).map_or("", String::as_str);
    let masks = Masks::for_texts(&[
        &state.git,
        &state.live,
        &state.diff,
        settings,
        option(OPTION_APPLICATION),
        option(OPTION_GIT_AGAIN),
    ]);
    let mut texts: Vec<&mut String> = vec![&mut out.git, &mut out.live, &mut out.diff];
    // Settings, the Application and the second render, in that order.
    for (key, value) in out.options.iter_mut() {
        if [OPTION_SETTINGS, OPTION_APPLICATION, OPTION_GIT_AGAIN].contains(&key.as_str()) {
            texts.push(value);
        }
    }
    let mut n = 0;
    for text in texts {
        if !text.is_empty() {
            let (masked, k) = mask_secrets_in_text(text, &masks);
            *text = masked;
            n += k;
        }
    }
    // Events and logs: their credentials masked as the report masks them
    // (`evidence::masked_texts`), so the receiver reads what the sender saw.
    let (events, logs) = state.observed_texts();
    if !events.is_empty() || !logs.is_empty() {
        fn as_str(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let (me, ml) = crate::evidence::masked_texts(&as_str(&events), &as_str(&logs));
        n += me
            .iter()
            .zip(&events)
            .chain(ml.iter().zip(&logs))
            .filter(|(m, t)| m != t)
            .count();
        let mut masked = out.clone();
        masked.set_observed(&me, &ml);
        out = masked;
    }
    (out, n)
}

/// `v1.` + base64url(deflate(json) + crc32(deflate(json))), without masking.
fn encode_unmasked(state: &ShareState) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    payload_to_fragment(miniz_oxide::deflate::compress_to_vec(&json, DEFLATE_LEVEL))
}

fn payload_to_fragment(mut deflated: Vec<u8>) -> String {
    let crc = crc32(&deflated);
    deflated.extend_from_slice(&crc.to_be_bytes());
    format!(
        "v{SHARE_FORMAT_VERSION}.{}",
        URL_SAFE_NO_PAD.encode(&deflated)
    )
}

/// Masks Secret values in git/live/diff with mask_secrets_in_text, then encodes: "v1." + base64url(no padding)(raw deflate(JSON)).
/// Returns the fragment text (without '#') and how many secret values were masked.
///
/// The base64 also carries a 4-byte CRC-32 of the deflate bytes after them (see the module docs). Whether the
/// result is offered as a link is the caller's choice: compare its length with [`MAX_LINK_FRAGMENT`].
pub fn encode_fragment(state: &ShareState) -> (String, usize) {
    let (masked, n) = mask_state(state);
    (encode_unmasked(&masked), n)
}

/// Accepts the fragment with or without a leading '#'. Never panics, never hangs, bounded memory (streaming inflate with a cap).
///
/// Whitespace anywhere is ignored (mail and ticket systems wrap long links). The state is returned as sent: it
/// is not masked again.
pub fn decode_fragment(fragment: &str) -> Result<ShareState, ShareError> {
    let f = fragment.trim();
    let f = f.strip_prefix('#').unwrap_or(f);
    let compact: String = f.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return Err(ShareError::Empty);
    }
    let rest = compact.strip_prefix('v').ok_or(ShareError::NotAShareLink)?;
    let (version, body) = rest.split_once('.').ok_or(ShareError::NotAShareLink)?;
    if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ShareError::NotAShareLink);
    }
    let version: u32 = version.parse().unwrap_or(u32::MAX);
    if version > SHARE_FORMAT_VERSION {
        return Err(ShareError::NewerFormat { found: version });
    }
    if version != SHARE_FORMAT_VERSION {
        return Err(ShareError::UnknownFormat { found: version });
    }
    // deflate never grows data by more than a few bytes per 16 KiB block: a payload this long cannot fit the cap.
    if body.len() / 4 * 3 > MAX_INFLATED + MAX_INFLATED / 256 + 1024 {
        return Err(ShareError::TooLarge {
            limit: MAX_INFLATED,
        });
    }
    let payload = LINK_B64
        .decode(body.as_bytes())
        .map_err(|_| ShareError::BadBase64)?;
    // The shortest deflate stream is 2 bytes; then the CRC.
    if payload.len() < 2 + 4 {
        return Err(ShareError::Truncated);
    }
    let (deflated, crc) = payload.split_at(payload.len() - 4);
    let crc = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if crc32(deflated) != crc {
        return Err(ShareError::ChecksumMismatch);
    }
    let json = inflate_capped(deflated)?;
    serde_json::from_slice::<ShareState>(&json).map_err(|e| ShareError::BadContent(e.to_string()))
}

/// Inflate a raw deflate stream to at most [`MAX_INFLATED`] bytes (miniz_oxide grows its buffer in steps up to the
/// cap, so memory stays within it).
fn inflate_capped(deflated: &[u8]) -> Result<Vec<u8>, ShareError> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_INFLATED).map_err(|e| match e
        .status
    {
        TINFLStatus::HasMoreOutput => ShareError::TooLarge {
            limit: MAX_INFLATED,
        },
        _ => ShareError::CorruptData,
    })
}

/// Full link: base URL (any; strip an existing fragment) + "#" + fragment.
pub fn share_url(base: &str, state: &ShareState) -> (String, usize) {
    let base = base.split('#').next().unwrap_or("");
    let (fragment, n) = encode_fragment(state);
    (format!("{base}#{fragment}"), n)
}

/// Share file: a small JSON document {"drift-doctor-share": 1, "fragment": "..."}; and its reader (also accepts a bare fragment or URL).
pub fn encode_share_file(state: &ShareState) -> (String, usize) {
    let (fragment, n) = encode_fragment(state);
    (share_file_text(&fragment), n)
}

/// The share file that holds an already encoded fragment.
pub fn share_file_text(fragment: &str) -> String {
    let doc = serde_json::json!({ SHARE_FILE_KEY: SHARE_FILE_VERSION, "fragment": fragment });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a share file, or a bare fragment, or a whole link (the part after the first `#`).
pub fn decode_share_file(text: &str) -> Result<ShareState, ShareError> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return Err(ShareError::Empty);
    }
    if t.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(t)
            .map_err(|e| ShareError::BadShareFile(format!("it is not valid JSON: {e}")))?;
        let version = v.get(SHARE_FILE_KEY).ok_or_else(|| {
            ShareError::BadShareFile(format!("it has no \"{SHARE_FILE_KEY}\" entry"))
        })?;
        match version.as_u64() {
            Some(SHARE_FILE_VERSION) => {}
            Some(found) if found > SHARE_FILE_VERSION => {
                return Err(ShareError::NewerShareFile { found })
            }
            _ => {
                return Err(ShareError::BadShareFile(format!(
                    "\"{SHARE_FILE_KEY}\" is {version}, not a known version"
                )))
            }
        }
        let fragment = v
            .get("fragment")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| ShareError::BadShareFile("it has no \"fragment\" text".to_string()))?;
        return decode_fragment(fragment);
    }
    match t.split_once('#') {
        Some((_, fragment)) => decode_fragment(fragment),
        None => decode_fragment(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret_mask::Masks;

    /// The numbering a link of this state uses.
    fn masks_of(s: &ShareState) -> Masks {
        let settings = s.options.get(OPTION_SETTINGS).map_or("", String::as_str);
        Masks::for_texts(&[&s.git, &s.live, &s.diff, settings])
    }
    use base64::engine::general_purpose::STANDARD;
    use proptest::prelude::*;

    fn state(git: &str, live: &str) -> ShareState {
        ShareState {
            mode: "sides".into(),
            git: git.into(),
            live: live.into(),
            namespace: "prod".into(),
            options: [("strategy".to_string(), "legacy".to_string())]
                .into_iter()
                .collect(),
            selected: Some("apps/Deployment/prod/web".into()),
            ..ShareState::default()
        }
    }

    /// The JSON text inside a fragment, as a receiver could read it.
    fn inflated_json(fragment: &str) -> String {
        let body = fragment.strip_prefix("v1.").unwrap();
        let payload = URL_SAFE_NO_PAD.decode(body).unwrap();
        let json = inflate_capped(&payload[..payload.len() - 4]).unwrap();
        String::from_utf8(json).unwrap()
    }

    const DEPLOYMENT: &str =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n";

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn round_trip_and_links() {
        let s = state(DEPLOYMENT, &DEPLOYMENT.replace("2", "3"));
        let (frag, n) = encode_fragment(&s);
        assert_eq!(n, 0);
        assert!(frag.starts_with("v1."));
        assert!(frag.len() <= MAX_LINK_FRAGMENT);
        assert!(frag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'));
        assert_eq!(decode_fragment(&frag), Ok(s.clone()));
        assert_eq!(decode_fragment(&format!("#{frag}")), Ok(s.clone()));
        // Wrapped by a mail client.
        let wrapped: String = frag
            .chars()
            .enumerate()
            .flat_map(|(i, c)| {
                if i % 60 == 59 {
                    vec![c, '\n', ' ']
                } else {
                    vec![c]
                }
            })
            .collect();
        assert_eq!(decode_fragment(&wrapped), Ok(s.clone()));

        let (url, _) = share_url("https://example.org/drift-doctor/?x=1#v1.old", &s);
        assert_eq!(url, format!("https://example.org/drift-doctor/?x=1#{frag}"));
        assert_eq!(decode_share_file(&url), Ok(s.clone()));
        assert_eq!(share_url("", &s).0, format!("#{frag}"));

        let (file, _) = encode_share_file(&s);
        let v: serde_json::Value = serde_json::from_str(&file).unwrap();
        assert_eq!(v[SHARE_FILE_KEY], 1);
        assert_eq!(v["fragment"], frag.as_str());
        assert_eq!(decode_share_file(&file), Ok(s.clone()));
        assert_eq!(decode_share_file(&format!("\u{feff}{file}")), Ok(s.clone()));
        assert_eq!(decode_share_file(&frag), Ok(s.clone()));
    }

    #[test]
    fn missing_and_unknown_fields_tolerated() {
        // An older or newer writer of format 1: missing fields default, unknown ones are ignored.
        let json = br#"{"mode":"diff","diff":"x","future":{"a":1}}"#;
        let frag = payload_to_fragment(miniz_oxide::deflate::compress_to_vec(json, 6));
        let s = decode_fragment(&frag).unwrap();
        assert_eq!(s.mode, "diff");
        assert_eq!(s.diff, "x");
        assert_eq!(s.selected, None);
    }

    #[test]
    fn secrets_masked_and_equality_kept() {
        let git = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: correct-horse-battery\n  user: admin-user-name\n---\n{DEPLOYMENT}"
        );
        let live = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {}\n  user: {}\n",
            STANDARD.encode("correct-horse-battery"),
            STANDARD.encode("other-user-name")
        );
        let diff = format!(
            "===== /Secret prod/db ======\n9c9\n<   password: {}\n---\n>   password: {}\n",
            STANDARD.encode("correct-horse-battery"),
            STANDARD.encode("other-user-name")
        );
        let mut s = state(&git, &live);
        s.diff = diff;
        let (frag, n) = encode_fragment(&s);
        assert_eq!(n, 6);
        let json = inflated_json(&frag);
        for plain in [
            "correct-horse-battery",
            "admin-user-name",
            "other-user-name",
        ] {
            assert!(!json.contains(plain), "{plain}");
            assert!(!json.contains(&STANDARD.encode(plain)), "{plain}");
        }
        let got = decode_fragment(&frag).unwrap();
        assert!(
            got.git.ends_with(DEPLOYMENT),
            "non-Secret documents are kept"
        );
        // Equal values, equal masks: git's stringData mask is the base64-decoded live data mask.
        let masks = masks_of(&s);
        let pw_mask = masks.mask(b"correct-horse-battery");
        assert!(got.git.contains(&format!("password: \"{pw_mask}\"")));
        assert!(got
            .live
            .contains(&format!("password: {}", STANDARD.encode(&pw_mask))));
        assert!(got
            .diff
            .contains(&format!("<   password: {}", STANDARD.encode(&pw_mask))));
        assert!(!got
            .live
            .contains(&STANDARD.encode(masks.mask(b"admin-user-name"))));
        assert_eq!(mask_state(&s).0, got);
    }

    fn valid_fragment() -> String {
        let git = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: p4ssw0rd-value\n";
        encode_fragment(&state(git, DEPLOYMENT)).0
    }

    #[test]
    fn every_single_byte_corruption_fails() {
        let frag = valid_fragment();
        let bytes = frag.as_bytes();
        for i in 0..bytes.len() {
            for b in 0..=255u8 {
                if b == bytes[i] {
                    continue;
                }
                let mut c = bytes.to_vec();
                c[i] = b;
                let text = String::from_utf8_lossy(&c);
                assert!(decode_fragment(&text).is_err(), "byte {i} -> {b}: {text}");
            }
        }
    }

    #[test]
    fn every_truncation_fails() {
        let frag = valid_fragment();
        for len in 0..frag.len() {
            assert!(decode_fragment(&frag[..len]).is_err(), "prefix of {len}");
        }
        // And every removed character.
        for i in 0..frag.len() {
            let cut = format!("{}{}", &frag[..i], &frag[i + 1..]);
            assert!(decode_fragment(&cut).is_err(), "without {i}");
        }
    }

    #[test]
    fn errors_are_specific() {
        let frag = valid_fragment();
        let body = frag.strip_prefix("v1.").unwrap();
        assert_eq!(decode_fragment(""), Err(ShareError::Empty));
        assert_eq!(decode_fragment("  # "), Err(ShareError::Empty));
        assert_eq!(decode_fragment("hello"), Err(ShareError::NotAShareLink));
        assert_eq!(decode_fragment("v1"), Err(ShareError::NotAShareLink));
        assert_eq!(decode_fragment("vx.abc"), Err(ShareError::NotAShareLink));
        assert_eq!(
            decode_fragment(&format!("v3.{body}")),
            Err(ShareError::NewerFormat { found: 3 })
        );
        assert_eq!(
            decode_fragment(&format!("v3.{body}"))
                .unwrap_err()
                .to_string(),
            "This link was made by a newer drift-doctor (format 3); this page reads format 1."
        );
        assert_eq!(
            decode_fragment(&format!("v99999999999999999999.{body}")),
            Err(ShareError::NewerFormat { found: u32::MAX })
        );
        assert_eq!(
            decode_fragment(&format!("v0.{body}")),
            Err(ShareError::UnknownFormat { found: 0 })
        );
        assert_eq!(decode_fragment("v1.@@@@"), Err(ShareError::BadBase64));
        assert_eq!(decode_fragment("v1.abc+/def"), Err(ShareError::BadBase64));
        assert_eq!(decode_fragment("v1."), Err(ShareError::Truncated));
        assert_eq!(
            decode_fragment("v1.AAAAAAAA"),
            Err(ShareError::ChecksumMismatch)
        );
        // A valid checksum over bytes that are not deflate.
        assert_eq!(
            decode_fragment(&payload_to_fragment(vec![0xff; 20])),
            Err(ShareError::CorruptData)
        );
        // Valid deflate of something that is not a state.
        for json in [
            &b"[1,2]"[..],
            b"not json",
            b"{\"git\": 5}",
            &[0xff, 0xfe][..],
        ] {
            let frag = payload_to_fragment(miniz_oxide::deflate::compress_to_vec(json, 6));
            assert!(
                matches!(decode_fragment(&frag), Err(ShareError::BadContent(_))),
                "{json:?}"
            );
        }
        // Share files.
        assert!(matches!(
            decode_share_file("{\"a\": 1}"),
            Err(ShareError::BadShareFile(_))
        ));
        assert!(matches!(
            decode_share_file("{"),
            Err(ShareError::BadShareFile(_))
        ));
        assert!(matches!(
            decode_share_file("{\"drift-doctor-share\": 1}"),
            Err(ShareError::BadShareFile(_))
        ));
        assert!(matches!(
            decode_share_file("{\"drift-doctor-share\": \"1\", \"fragment\": \"\"}"),
            Err(ShareError::BadShareFile(_))
        ));
        assert_eq!(
            decode_share_file(&format!(
                "{{\"drift-doctor-share\": 2, \"fragment\": \"{frag}\"}}"
            )),
            Err(ShareError::NewerShareFile { found: 2 })
        );
        assert_eq!(decode_share_file("   "), Err(ShareError::Empty));
        for e in [
            ShareError::Empty,
            ShareError::TooLarge {
                limit: MAX_INFLATED,
            },
            ShareError::ChecksumMismatch,
        ] {
            assert!(e.to_string().ends_with('.'));
        }
    }

    #[test]
    fn deflate_bomb_refused() {
        // 65 MiB of zeros deflates to about 64 KiB; with a valid checksum it reaches the inflater.
        let zeros = vec![0u8; MAX_INFLATED + 1024 * 1024];
        let bomb = miniz_oxide::deflate::compress_to_vec(&zeros, 9);
        drop(zeros);
        assert!(bomb.len() < 200 * 1024, "{}", bomb.len());
        let frag = payload_to_fragment(bomb);
        assert_eq!(
            decode_fragment(&frag),
            Err(ShareError::TooLarge {
                limit: MAX_INFLATED
            })
        );
        // An oversized body is refused before decoding.
        let huge = format!("v1.{}", "A".repeat(MAX_INFLATED / 3 * 4 + 4 * 1024 * 1024));
        assert_eq!(
            decode_fragment(&huge),
            Err(ShareError::TooLarge {
                limit: MAX_INFLATED
            })
        );
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![any::<String>(), "[ -~\n]{0,300}", Just(String::new())]
    }

    fn arb_state() -> impl Strategy<Value = ShareState> {
        (
            text(),
            text(),
            text(),
            text(),
            text(),
            prop::collection::btree_map(any::<String>(), any::<String>(), 0..5),
            prop::option::of(any::<String>()),
        )
            .prop_map(
                |(mode, git, live, diff, namespace, options, selected)| ShareState {
                    mode,
                    git,
                    live,
                    diff,
                    namespace,
                    options,
                    selected,
                },
            )
    }

    /// Secrets with random values, next to other documents.
    fn secret_state() -> impl Strategy<Value = (ShareState, Vec<String>)> {
        (
            prop::collection::vec("[A-Za-z0-9_-]{10,24}", 1..4),
            arb_state(),
        )
            .prop_map(|(values, mut s)| {
                let mut git = String::from(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n",
                );
                let mut live =
                    String::from("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n");
                for (i, v) in values.iter().enumerate() {
                    git.push_str(&format!("  k{i}: {v}\n"));
                    live.push_str(&format!("  k{i}: {}\n", STANDARD.encode(v)));
                }
                s.git = format!("{git}---\n{DEPLOYMENT}");
                s.live = live;
                (s, values)
            })
    }

    proptest! {
        // PROPTEST_CASES raises the number of cases for a longer run.
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
            ..ProptestConfig::default()
        })]

        #[test]
        fn round_trip_arbitrary(s in arb_state()) {
            let (frag, _) = encode_fragment(&s);
            let (masked, _) = mask_state(&s);
            prop_assert_eq!(decode_fragment(&frag), Ok(masked.clone()));
            let (file, _) = encode_share_file(&s);
            prop_assert_eq!(decode_share_file(&file), Ok(masked));
        }

        #[test]
        fn round_trip_without_secrets_is_exact(s in arb_state()) {
            // Texts without the word Secret and without diff markers are never changed by masking.
            prop_assume!(![&s.git, &s.live, &s.diff].iter().any(|t| t.contains("Secret") || t.contains("@@") || t.contains("=====")));
            let (frag, n) = encode_fragment(&s);
            prop_assert_eq!(n, 0);
            prop_assert_eq!(decode_fragment(&frag), Ok(s));
        }

        #[test]
        fn round_trip_with_secrets((s, values) in secret_state()) {
            let (frag, n) = encode_fragment(&s);
            prop_assert!(n >= 2 * values.len());
            let json = inflated_json(&frag);
            for v in &values {
                prop_assert!(!json.contains(v.as_str()));
                prop_assert!(!json.contains(&STANDARD.encode(v)));
            }
            let got = decode_fragment(&frag).unwrap();
            prop_assert_eq!(&got, &mask_state(&s).0);
            let masks = masks_of(&s);
            for (i, v) in values.iter().enumerate() {
                let mask = masks.mask(v.as_bytes());
                let git_line = format!("  k{i}: \"{mask}\"\n");
                let live_line = format!("  k{i}: {}\n", STANDARD.encode(&mask));
                prop_assert!(got.git.contains(&git_line));
                prop_assert!(got.live.contains(&live_line));
            }
        }

        #[test]
        fn random_text_is_refused(t in any::<String>()) {
            prop_assert!(decode_fragment(&t).is_err());
            prop_assert!(decode_share_file(&t).is_err());
        }

        #[test]
        fn random_body_is_refused(body in "[A-Za-z0-9_-]{0,400}") {
            let frag = format!("v1.{body}");
            prop_assert!(decode_fragment(&frag).is_err());
        }
    }
}
