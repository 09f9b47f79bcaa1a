//! Damaged and large input: no panic, no runaway work.

use super::*;

/// A small deterministic generator (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() as usize) % n
        }
    }
}

#[test]
fn damaged_input_never_panics() {
    let mut rng = Lcg(7);
    let pieces = [
        "<",
        ">",
        "-",
        "+",
        " ",
        "@@ -1,3 +1,3 @@",
        "---",
        "- ",
        "key: ",
        "\t",
        "|",
        "'",
        "\"",
        "\u{e9}",
        "\r",
        "  ",
        "- - - -",
        "0a1,3",
        "===== a/B c/d ======",
        "***",
        "{",
        "[",
    ];
    for (_, text) in ALL {
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..60 {
            let mut out: Vec<String> = Vec::new();
            for l in &lines {
                match rng.below(12) {
                    0 => continue,
                    1 => out.push(l.chars().take(rng.below(l.len() + 1)).collect()),
                    2 => out.push(format!("{}{}", pieces[rng.below(pieces.len())], l)),
                    3 => {
                        let mut s = l.to_string();
                        let at = s
                            .char_indices()
                            .nth(rng.below(s.chars().count() + 1))
                            .map_or(s.len(), |(i, _)| i);
                        s.insert_str(at, pieces[rng.below(pieces.len())]);
                        out.push(s);
                    }
                    4 => out.push(l.replacen("  ", "", 1)),
                    _ => out.push(l.to_string()),
                }
            }
            let damaged = out.join("\n");
            let _ = parse_diff_text(&damaged);
            let _ = looks_like_diff(&damaged);
        }
    }
    // Pathological shapes.
    let deep: String = (0..5000)
        .map(|i| format!("+{}k{i}:\n", " ".repeat(i * 2)))
        .collect();
    let _ = parse_diff_text(&format!(
        "===== /ConfigMap a/b ======\n@@ -0,0 +1,5000 @@\n{deep}"
    ));
    let dashes = format!(
        "===== /ConfigMap a/b ======\n1a2\n> {}x\n",
        "- ".repeat(20000)
    );
    let _ = parse_diff_text(&dashes);
    let nested = format!(
        "===== /ConfigMap a/b ======\n1c1\n< a: {}\n---\n> a: 1\n",
        "[".repeat(100000)
    );
    let _ = parse_diff_text(&nested);
    let _ = parse_diff_text("@@ -99999999999999999999999,1 +1 @@\n-x\n");
    let _ = parse_diff_text("99999999999999999999999c1\n< a\n---\n> b\n");
}

#[test]
fn large_paste_is_fast() {
    // Release builds read 20 MB (the fixtures repeated: about 30 000 resources) in under a second
    // on an idle machine; the bound leaves room for a busy one. Debug builds are ~20 times slower,
    // so they check a tenth of it for runaway (superlinear) work.
    let (size, limit_ms) = if cfg!(debug_assertions) {
        (2_000_000, 20_000)
    } else {
        (20_000_000, 5_000)
    };
    let mut text = String::new();
    while text.len() < size {
        text.push_str(ARGO_U3);
        text.push_str(KUBECTL);
        text.push_str(ARGO_NORMAL);
    }
    let start = std::time::Instant::now();
    let rs = parse_diff_text(&text).unwrap();
    let took = start.elapsed();
    assert!(rs.len() > size / 1000, "{}", rs.len());
    assert!(took.as_millis() < limit_ms, "{took:?}");
}
