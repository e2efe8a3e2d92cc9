//! The reminder texts, exactly as the reference plugin words them: the model
//! reads these, so a changed byte is a changed transcript.

use crate::arguments::Arguments;
use crate::canonical::Sink;
use crate::config::GuardConfig;
use crate::error::CanonicalError;
use crate::ignore::KeyPath;
use crate::scratch::Scratch;

pub const GENTLE_TEXT: &str = "You are repeating the exact same tool call with identical arguments. Carefully analyze the previous result before calling again: if the task is not complete, try a different approach or different arguments instead of repeating the call.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// The first threshold: a short generic nudge.
    Gentle,
    /// Every later threshold: names the tool, the run length and the arguments.
    Detailed,
    /// Opt-in (`cycles`): a block of 2 to 5 calls repeated back to back.
    Cycle,
    /// Opt-in (`similar`): a run of near-identical calls of one tool.
    Similar,
    /// Opt-in (`noProgress`): the same call returning the same result again, not necessarily in a row.
    NoProgress,
    /// Opt-in (`failures`): one tool failing with the same error again, whatever its arguments.
    Failure,
    /// Opt-in (`stopAt`): the count reached the operator's bound; the plugin ends the turn.
    Stop,
}

impl Tier {
    /// Every tier, in the order stats and reports list them (and `as usize` their index).
    pub const ALL: [Tier; 7] = [
        Tier::Gentle,
        Tier::Detailed,
        Tier::Cycle,
        Tier::Similar,
        Tier::NoProgress,
        Tier::Failure,
        Tier::Stop,
    ];

    /// The tier's name, as JavaScript and the reports give it.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Gentle => "gentle",
            Tier::Detailed => "detailed",
            Tier::Cycle => "cycle",
            Tier::Similar => "similar",
            Tier::NoProgress => "noProgress",
            Tier::Failure => "failure",
            Tier::Stop => "stop",
        }
    }

    /// The symbol between the tool and the count in the reminder's summary (`grep × 3`,
    /// `grep ≈ 5`, `grep ⟳ 6`, `grep ✗ 3`), as the plugin writes it into the message's source.
    pub fn symbol(self) -> &'static str {
        match self {
            Tier::Gentle | Tier::Detailed | Tier::Cycle | Tier::Stop => "×",
            Tier::Similar => "≈",
            Tier::NoProgress => "⟳",
            Tier::Failure => "✗",
        }
    }

    /// The option that turns the tier on: a detection's never decides which calls are identical
    /// (its `identity` is false), only where reminders come.
    pub fn option(self) -> &'static str {
        match self {
            Tier::Gentle | Tier::Detailed => "thresholds",
            Tier::Cycle => "cycles",
            Tier::Similar => "similar",
            Tier::NoProgress => "noProgress",
            Tier::Failure => "failures",
            Tier::Stop => "stopAt",
        }
    }

    /// Whether `config` turns the tier on.
    pub fn is_on(self, config: &GuardConfig) -> bool {
        match self {
            Tier::Gentle | Tier::Detailed => true,
            Tier::Cycle => config.cycles.is_some(),
            Tier::Similar => config.similar.is_some(),
            Tier::NoProgress => config.no_progress.is_some(),
            Tier::Failure => config.failures.is_some(),
            Tier::Stop => config.stop_at.is_some(),
        }
    }

    /// Of several reminders due on one call, the one of the lowest precedence is returned: the
    /// hard stop over all, then a run's, a cycle's, a near-identical run's, no progress, failures.
    pub fn precedence(self) -> u8 {
        match self {
            Tier::Stop => 0,
            Tier::Gentle | Tier::Detailed => 1,
            Tier::Cycle => 2,
            Tier::Similar => 3,
            Tier::NoProgress => 4,
            Tier::Failure => 5,
        }
    }

    /// Whether the tier's count counts toward `stopAt` (the hard stop comes at the largest).
    pub fn counts_toward_stop(self) -> bool {
        match self {
            Tier::Gentle | Tier::Detailed | Tier::Similar | Tier::NoProgress | Tier::Failure => {
                true
            }
            Tier::Cycle | Tier::Stop => false,
        }
    }

    /// Whether the tier reads the tools' results: the callers pass them only to a guard with such
    /// a tier on (or with `sameResultOnly`).
    pub fn reads_results(self) -> bool {
        match self {
            Tier::NoProgress | Tier::Failure => true,
            Tier::Gentle | Tier::Detailed | Tier::Cycle | Tier::Similar | Tier::Stop => false,
        }
    }

    /// Whether the plugin ends the agent's turn with the tier's reminder.
    pub fn ends_turn(self) -> bool {
        match self {
            Tier::Stop => true,
            Tier::Gentle
            | Tier::Detailed
            | Tier::Cycle
            | Tier::Similar
            | Tier::NoProgress
            | Tier::Failure => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminder {
    pub tier: Tier,
    /// The run length that triggered it; for a cycle, the block's repetitions.
    pub count: u64,
    /// UTF-16, because a preview cut may split a surrogate pair, as JavaScript's `slice` does.
    pub text: Vec<u16>,
    /// A cycle's block: its tool names as UTF-16 code units, in call order. Empty for the other
    /// tiers (no allocation).
    pub tools: Vec<Vec<u16>>,
}

pub fn gentle(count: u64) -> Reminder {
    Reminder {
        tier: Tier::Gentle,
        count,
        text: GENTLE_TEXT.encode_utf16().collect(),
        tools: Vec::new(),
    }
}

/// A reminder of `tier`: its title, the tool's name and `tail`.
fn about(tier: Tier, count: u64, title: &str, tool: &[u16], tail: &str) -> Reminder {
    let mut text: Vec<u16> = format!("{title}:\n- tool: ").encode_utf16().collect();
    text.extend_from_slice(tool);
    text.extend(tail.encode_utf16());
    Reminder {
        tier,
        count,
        text,
        tools: Vec::new(),
    }
}

/// The cycle reminder: the block's tools in order and how often it repeated.
pub fn cycle(tools: Vec<Vec<u16>>, repetitions: u64) -> Reminder {
    let mut text: Vec<u16> = "Repeated cycle of tool calls detected:\n- tools: "
        .encode_utf16()
        .collect();
    for (i, tool) in tools.iter().enumerate() {
        if i > 0 {
            text.extend(", ".encode_utf16());
        }
        text.extend_from_slice(tool);
    }
    text.extend(format!("\n- consecutive_repetitions: {repetitions}\nThe same sequence of calls, with identical arguments, keeps coming back and is not making progress. Do not repeat this sequence again. Inspect the latest results and choose a different action, different arguments, or finish the task if enough evidence has been gathered.").encode_utf16());
    Reminder {
        tier: Tier::Cycle,
        count: repetitions,
        text,
        tools,
    }
}

/// The reminder for a run of `count` near-identical calls of `tool`.
pub fn similar(tool: &[u16], count: u64) -> Reminder {
    let title = "Near-identical tool calls detected";
    let tail = format!("\n- consecutive_calls: {count}\nThe arguments change only slightly from call to call and the calls are not making progress. Do not call this tool again with a small variation of the same arguments. Inspect the latest result and choose a different action, or finish the task if enough evidence has been gathered.");
    about(Tier::Similar, count, title, tool, &tail)
}

/// The reminder for `count` calls of `tool`, each the same call with the same result, among the last `window`.
pub fn no_progress(tool: &[u16], count: u64, window: u64) -> Reminder {
    let title = "Tool calls without progress detected";
    let tail = format!("\n- same_call_same_result: {count} of the last {window} calls\nThis call, with identical arguments, keeps returning the same result, with other calls in between, so it tells you nothing new. Do not make it again until something it depends on has changed. Read the result you already have, change your approach (a different command, file, or fix), or finish the task if enough evidence has been gathered.");
    about(Tier::NoProgress, count, title, tool, &tail)
}

/// The reminder for `count` calls of `tool` failing with the same error among the last `window`.
pub fn failures(tool: &[u16], count: u64, window: u64) -> Reminder {
    let title = "Repeated tool failures detected";
    let tail = format!("\n- same_error: {count} of the last {window} calls\nThis tool keeps failing with the same error, whatever the arguments, so retrying it with small changes will fail again. Read the error message: it says what is wrong (a missing file or directory, a wrong path or parameter, a command that is not available). Fix that cause first, or use a different tool or approach.");
    about(Tier::Failure, count, title, tool, &tail)
}

/// The message of the hard stop: `count` calls of `tool` reached `stopAt`.
pub fn stop(tool: &[u16], count: u64) -> Reminder {
    let title = "Tool call loop stopped";
    let tail = format!("\n- calls: {count}, the limit this guard was configured with\nThe same call kept coming back without progress, so this turn has been ended. Before calling tools again, review the results you already have and choose a different approach, or report what is blocking you.");
    about(Tier::Stop, count, title, tool, &tail)
}

/// The detailed reminder, naming `tool` (UTF-16 code units) exactly as JavaScript gave it.
pub fn detailed(
    tool: &[u16],
    count: u64,
    arguments: Arguments<'_>,
    preview_chars: usize,
    ignored: &[KeyPath],
) -> Result<Reminder, CanonicalError> {
    let mut preview = PreviewSink {
        cap: preview_chars,
        units: Vec::new(),
        total: 0,
    };
    let removed =
        arguments.write_canonical_without(&mut preview, ignored, &mut Scratch::default())?;
    let mut text: Vec<u16> = "Repeated tool call detected:\n- tool: "
        .encode_utf16()
        .collect();
    text.extend_from_slice(tool);
    text.extend(format!("\n- consecutive_calls: {count}\n- arguments: ").encode_utf16());
    text.extend_from_slice(&preview.units);
    if preview.total > preview.cap as u64 {
        let omitted = preview.total - preview.cap as u64;
        text.extend(format!("… (+{omitted} more chars)").encode_utf16());
    }
    // With `ignoreArguments`: the keys left out of the arguments quoted, as configured.
    for (i, path) in removed.iter().enumerate() {
        text.extend(if i == 0 { "\n- ignored_keys: " } else { ", " }.encode_utf16());
        text.extend_from_slice(path);
    }
    text.extend("\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.".encode_utf16());
    Ok(Reminder {
        tier: Tier::Detailed,
        count,
        text,
        tools: Vec::new(),
    })
}

/// Keeps the first `cap` UTF-16 code units of the canonical text and counts the rest.
struct PreviewSink {
    cap: usize,
    units: Vec<u16>,
    total: u64,
}

impl Sink for PreviewSink {
    fn write(&mut self, chunk: &str) {
        if self.units.len() >= self.cap {
            self.total += utf16_len(chunk);
            return;
        }
        for unit in chunk.encode_utf16() {
            self.total += 1;
            if self.units.len() < self.cap {
                self.units.push(unit);
            }
        }
    }
}

/// UTF-16 length of UTF-8 text: one unit per scalar, two for those past U+FFFF.
fn utf16_len(text: &str) -> u64 {
    text.bytes()
        .map(|b| u64::from((b & 0xc0) != 0x80) + u64::from(b >= 0xf0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant is in [`Tier::ALL`], at its own index: the match below stops compiling when a
    /// tier is added, and this test then fails until `ALL` has it too (a tier added last and left
    /// out of `ALL` is never picked by the guard, which its own tests find).
    #[test]
    fn all_holds_every_tier_at_its_index() {
        let index = |tier: Tier| match tier {
            Tier::Gentle => 0,
            Tier::Detailed => 1,
            Tier::Cycle => 2,
            Tier::Similar => 3,
            Tier::NoProgress => 4,
            Tier::Failure => 5,
            Tier::Stop => 6,
        };
        for (at, tier) in Tier::ALL.iter().enumerate() {
            assert_eq!((index(*tier), *tier as usize), (at, at));
        }
    }

    /// The hard stop wins over every other tier, and no two tiers that can be due on one call
    /// share a precedence (gentle and detailed, the run's, never are); the others keep the order
    /// they had before it was declared.
    #[test]
    fn precedence_puts_the_stop_first_and_ties_no_two_detections() {
        for a in Tier::ALL {
            for b in Tier::ALL {
                let run = |t| matches!(t, Tier::Gentle | Tier::Detailed);
                let tied = a.precedence() == b.precedence();
                assert_eq!(tied, a == b || (run(a) && run(b)), "{a:?} {b:?}");
                if a == Tier::Stop && b != a {
                    assert!(a.precedence() < b.precedence(), "{b:?}");
                }
            }
        }
        let order = [
            Tier::Detailed,
            Tier::Cycle,
            Tier::Similar,
            Tier::NoProgress,
            Tier::Failure,
        ];
        assert!(order
            .windows(2)
            .all(|w| w[0].precedence() < w[1].precedence()));
    }

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn detailed_text(json: &str, cap: usize) -> String {
        String::from_utf16_lossy(
            &detailed(&units("grep"), 5, Arguments::Json(json), cap, &[])
                .unwrap()
                .text,
        )
    }

    #[test]
    fn detailed_quotes_whole_arguments_under_the_cap() {
        let text = detailed_text(r#"{"q":"x"}"#, 9);
        assert!(text.starts_with("Repeated tool call detected:\n- tool: grep\n- consecutive_calls: 5\n- arguments: {\"q\":\"x\"}\nThe repeated"));
    }

    #[test]
    fn detailed_head_truncates_with_count() {
        let text = detailed_text(r#"{"q":"abcdef"}"#, 5);
        assert!(
            text.contains("- arguments: {\"q\":… (+9 more chars)\nThe"),
            "{text}"
        );
    }

    #[test]
    fn cut_inside_surrogate_pair_keeps_the_high_half() {
        // Canonical: "😀x" = quote, D83D, DE00, x, quote: 5 units; cap 2 cuts after D83D.
        let r = detailed(&units("t"), 5, Arguments::Json("\"\u{1f600}x\""), 2, &[]).unwrap();
        let marker: Vec<u16> = "- arguments: ".encode_utf16().collect();
        let at = r
            .text
            .windows(marker.len())
            .position(|w| w == marker.as_slice())
            .unwrap()
            + marker.len();
        assert_eq!(&r.text[at..at + 3], &[u16::from(b'"'), 0xd83d, 0x2026]);
        assert!(String::from_utf16_lossy(&r.text).contains("… (+3 more chars)"));
    }

    #[test]
    fn cycle_names_the_block_in_order() {
        let r = cycle(vec![units("read_file"), units("grep")], 3);
        assert_eq!((r.tier, r.count), (Tier::Cycle, 3));
        let text = String::from_utf16_lossy(&r.text);
        assert!(text.starts_with("Repeated cycle of tool calls detected:\n- tools: read_file, grep\n- consecutive_repetitions: 3\nThe same sequence"), "{text}");
        assert!(text.ends_with("finish the task if enough evidence has been gathered."));
    }

    #[test]
    fn utf16_length_counts_astral_as_two() {
        assert_eq!(utf16_len("a\u{e9}\u{20ac}\u{1f600}"), 5);
    }

    #[test]
    fn names_are_quoted_code_unit_for_code_unit() {
        let lone = vec![u16::from(b'x'), 0xd800];
        let r = detailed(&lone, 5, Arguments::Json("{}"), 500, &[]).unwrap();
        let mut expected = units("Repeated tool call detected:\n- tool: ");
        expected.extend_from_slice(&lone);
        expected.extend(units("\n- consecutive_calls: 5\n"));
        assert_eq!(&r.text[..expected.len()], expected.as_slice());
        let other = vec![u16::from(b'x'), 0xdbff];
        let r = cycle(vec![lone.clone(), other.clone()], 2);
        let mut expected = units("Repeated cycle of tool calls detected:\n- tools: ");
        expected.extend_from_slice(&lone);
        expected.extend(units(", "));
        expected.extend_from_slice(&other);
        expected.extend(units("\n- consecutive_repetitions: 2\n"));
        assert_eq!(&r.text[..expected.len()], expected.as_slice());
        assert_eq!(r.tools, vec![lone, other]);
    }
}
