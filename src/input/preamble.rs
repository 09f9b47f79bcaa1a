//! Lines a terminal paste puts above the manifests (a prompt with its
//! command, the CLI's log lines): found before the YAML parser runs, so
//! the documents keep their line numbers and the shells can name them.

use super::{without_bom, Side};

/// Lines a terminal paste puts above the manifests: the shell prompt with
/// the command that printed them, the CLI's log lines. They are skipped, as
/// comments are, and the shells say which lines went.
#[derive(Debug, Clone, PartialEq)]
pub struct Preamble {
    /// The skipped lines (1-based number, text), the first few of them.
    pub lines: Vec<(usize, String)>,
    /// How many lines were skipped.
    pub count: usize,
    /// The last skipped line.
    pub end_line: usize,
    /// The byte offset just after it.
    pub end_byte: usize,
}

/// At most this many leading lines are looked at for a preamble, and this
/// many of them are named.
const PREAMBLE_LINES: usize = 50;
const PREAMBLE_NAMED: usize = 3;

impl Preamble {
    /// What was skipped, in one sentence naming the lines.
    pub fn note(&self, side: Side) -> String {
        let named: Vec<String> = self
            .lines
            .iter()
            .map(|(n, l)| {
                let l = l.trim();
                let short: String = l.chars().take(80).collect();
                let more = if short.len() < l.len() { "…" } else { "" };
                format!("line {n} “{short}{more}”")
            })
            .collect();
        let rest = self.count - self.lines.len();
        let and_more = if rest > 0 {
            format!(" and {rest} more")
        } else {
            String::new()
        };
        let what = if self.count == 1 {
            "a line that is not YAML".to_string()
        } else {
            format!("{} lines that are not YAML", self.count)
        };
        format!(
            "The {} side starts with {what} ({}{and_more}): skipped.",
            side.name(),
            named.join(", "),
        )
    }
}

/// Whether `line` is one a terminal paste puts above manifests.
fn terminal_line(line: &str) -> bool {
    let t = line.trim();
    if t == "$"
        || ["$ ", "% ", "❯ ", "➜ ", "λ "]
            .iter()
            .any(|p| t.starts_with(p))
    {
        return true;
    }
    // PowerShell: `PS C:\dir> command`.
    if t.starts_with("PS ") && t.contains("> ") {
        return true;
    }
    // `user@host:~/dir$ command`, `[user@host dir]# command`: a prefix
    // without a YAML key's `: ` before the prompt sign.
    if let Some(at) = ["$ ", "# ", "% ", "> "]
        .iter()
        .filter_map(|p| t.find(p))
        .min()
    {
        let prefix = &t[..at];
        if prefix.len() <= 80
            && !prefix.contains(": ")
            && (prefix.contains('@') || prefix.starts_with('['))
        {
            return true;
        }
    }
    // logrus text (`WARN[0000] …`), logfmt (`time="…" level=…`), kubectl's
    // `Warning: …` (no Kubernetes object has a capitalised field).
    let logrus = ["TRAC", "DEBU", "INFO", "WARN", "ERRO", "FATA", "PANI"]
        .iter()
        .any(|l| {
            t.strip_prefix(l)
                .and_then(|r| r.strip_prefix('['))
                .and_then(|r| r.split_once(']'))
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
    logrus || (t.starts_with("time=\"") && t.contains(" level=")) || t.starts_with("Warning: ")
}

/// The terminal lines above a side's manifests (see [`Preamble`]), if any:
/// only those before the first line of anything else.
pub fn preamble(text: &str) -> Option<Preamble> {
    let text = without_bom(text);
    let mut found: Option<Preamble> = None;
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').take(PREAMBLE_LINES).enumerate() {
        offset += raw.len();
        if raw.trim().is_empty() {
            continue;
        }
        if !terminal_line(raw) {
            break;
        }
        let p = found.get_or_insert(Preamble {
            lines: Vec::new(),
            count: 0,
            end_line: 0,
            end_byte: 0,
        });
        p.count += 1;
        if p.lines.len() < PREAMBLE_NAMED {
            p.lines.push((i + 1, raw.trim_end().to_string()));
        }
        p.end_line = i + 1;
        p.end_byte = offset;
    }
    found
}

/// The text after its preamble (the whole text when it has none).
pub(super) fn after_preamble(text: &str) -> (&str, usize) {
    match preamble(text) {
        Some(p) => (&text[p.end_byte..], p.end_line),
        None => (text, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse_side;

    #[test]
    fn a_terminals_lines_above_the_manifests_are_skipped_and_named() {
        let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: [x\n";
        let pasted = format!("$ argocd app manifests shop --source live\nWARN[0000] Failed to invoke grpc call. Use flag --grpc-web in grpc calls.\n\n{yaml}");
        // The error still points at its own line of the paste.
        let e = parse_side(&pasted, Side::Live).unwrap_err();
        let plain = parse_side(yaml, Side::Live).unwrap_err();
        assert_eq!(e.line, plain.line + 3, "{e}");
        let good = pasted.replace("[x", "[x]");
        let docs = parse_side(&good, Side::Live).unwrap();
        assert_eq!((docs.len(), docs[0].line), (1, 4));
        let p = preamble(&good).unwrap();
        assert_eq!((p.count, p.end_line), (2, 2));
        assert_eq!(
            p.note(Side::Live),
            "The live side starts with 2 lines that are not YAML (line 1 “$ argocd app manifests shop --source live”, line 2 “WARN[0000] Failed to invoke grpc call. Use flag --grpc-web in grpc calls.”): skipped."
        );
        // JSON below a prompt keeps its lines too.
        let json = "user@host:~/src$ kubectl get cm a -o json\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"a\"}}\n";
        let docs = parse_side(json, Side::Live).unwrap();
        assert_eq!((docs.len(), docs[0].line), (1, 2));
        assert_eq!(preamble(json).unwrap().note(Side::Git), "The git side starts with a line that is not YAML (line 1 “user@host:~/src$ kubectl get cm a -o json”): skipped.");
        let e = parse_side(&json.replace("}}", "}"), Side::Live).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        // Only a prompt: as empty as no text.
        let e = parse_side("$ argocd app manifests shop\n", Side::Git).unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        // YAML itself is never taken for a terminal's line.
        for text in [
            yaml.to_string(),
            "# comment $ not a prompt\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
                .into(),
            "metadata: # user@host$ x\n  name: a\n".into(),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n$ later\n".into(),
        ] {
            assert_eq!(preamble(&text), None, "{text}");
        }
        assert!(preamble("PS C:\\work> argocd app diff shop\n").is_some());
        assert!(preamble("time=\"2026-12-04T10:00:00Z\" level=warning msg=x\n").is_some());
    }
}
