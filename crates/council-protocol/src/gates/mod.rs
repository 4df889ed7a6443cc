//! Gate decisions: pure functions from facts to verdicts, messages and fixes.
//!
//! Every gate is one file holding one `GATE` constant (its name in the Context Object's
//! `gates`, its timeline action, the policy key that configures it, and its check), and
//! one line in [`gate_table!`] below. The stages evaluate the gates of their
//! kind; the ledger derives `gates` and stage statuses from the same table.

pub mod guard;
pub mod json;
pub mod release;

use crate::render::text::Message;
use crate::review::ReviewFacts;
use crate::stage::Stage;

pub use diff_size::thousands;

/// Declares the gate modules and lists their `GATE`s, in the order they are evaluated
/// and shown: adding a gate is its file plus its name here.
macro_rules! gate_table {
    ($($gate:ident),* $(,)?) => {
        $(mod $gate;)*
        /// Every gate this build knows, in evaluation order.
        pub static GATES: &[Gate] = &[$($gate::GATE),*];
    };
}

gate_table! {
    branch_name,
    target_branch,
    actor,
    doc_coverage,
    diff_size,
    agent_diff_size,
    agent_paths,
    secret_scan,
    assistant_context,
    task_list,
    pipeline_green,
    merge_ready,
    human_approval,
    queue,
}

pub use queue::{QueueCheck, conflict as queue_conflict, verdict as queue_verdict};

/// A gate's identity and its check.
#[derive(Debug)]
pub struct Gate {
    /// Key in the Context Object's `gates` (`naming_convention`).
    pub name: &'static str,
    /// Timeline action of its decisions (`check:branch-name`).
    pub action: &'static str,
    /// The policy key that configures it, for messages (`branches.rules`).
    pub config_key: &'static str,
    pub check: Check,
}

/// What a gate looks at, by stage. A check returns `None` when its policy section leaves
/// it off (the gate did not run).
#[derive(Debug, Clone, Copy)]
pub enum Check {
    Guard(fn(&guard::GuardFacts) -> Option<GateOutcome>),
    Review(fn(&ReviewFacts) -> Option<GateOutcome>),
    Release(fn(&release::ReleaseFacts) -> Option<GateOutcome>),
    /// The merge queue's verdict on a queue commit; recorded by the release agent.
    Queue(fn(&QueueCheck) -> Option<GateOutcome>),
}

impl Gate {
    pub fn stage(&self) -> Stage {
        match self.check {
            Check::Guard(_) => Stage::Guard,
            Check::Review(_) => Stage::Review,
            Check::Release(_) | Check::Queue(_) => Stage::Release,
        }
    }

    pub fn outcome(
        &'static self,
        verdict: Verdict,
        message: Message,
        fix: Option<Fix>,
    ) -> GateOutcome {
        GateOutcome {
            gate: self.name,
            action: self.action,
            verdict,
            message,
            fix,
        }
    }

    pub fn pass(&'static self, message: Message) -> GateOutcome {
        self.outcome(Verdict::Pass, message, None)
    }

    pub fn fail(&'static self, message: Message, fix: Option<Fix>) -> GateOutcome {
        self.outcome(Verdict::Fail, message, fix)
    }
}

/// The gate (in the table) a timeline action records, if any.
pub fn by_action(action: &str) -> Option<&'static Gate> {
    GATES.iter().find(|g| g.action == action)
}

/// The gates of one stage, in table order.
pub fn of_stage(stage: Stage) -> impl Iterator<Item = &'static Gate> {
    GATES.iter().filter(move |g| g.stage() == stage)
}

/// The `gates` key a `check:` action fills: the registry's name, else (a gate a newer
/// version wrote) the check's name with dashes as underscores.
pub fn gate_key(action: &str) -> Option<String> {
    let check = action.strip_prefix("check:")?;
    Some(match by_action(action) {
        Some(gate) => gate.name.to_string(),
        None => check.replace('-', "_"),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    /// Not decided yet: the gate waits for something outside (a check still running, a
    /// label, an approval). Not a failure: the run exits 0 and says what it waits for.
    Pending,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Pending => "PENDING",
        }
    }
}

/// One gate's decision, with what the timeline, summary and comments say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOutcome {
    /// Key in the Context Object's `gates` (`naming_convention`).
    pub gate: &'static str,
    /// Timeline action (`check:branch-name`).
    pub action: &'static str,
    pub verdict: Verdict,
    pub message: Message,
    pub fix: Option<Fix>,
}

/// How to make a failed gate pass: advice, and commands to copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub advice: Message,
    /// Alternatives: each line is a whole command on its own, runnable once its
    /// placeholders (which the advice explains) are filled in.
    pub commands: Vec<String>,
}

impl GateOutcome {
    /// The timeline message: the verdict's reason and, on failure, the fix in one line.
    pub fn timeline_message(&self) -> String {
        match &self.fix {
            None => self.message.plain(),
            Some(fix) if fix.commands.is_empty() => {
                format!("{} Fix: {}", self.message.plain(), fix.advice.plain())
            }
            Some(fix) => format!(
                "{} Fix: {} `{}`",
                self.message.plain(),
                fix.advice.plain(),
                fix.commands.join("` or `")
            ),
        }
    }
}

/// Failed gates' fixes, each shown once (two gates often share the same fix).
pub fn distinct_fixes<'a>(gates: &[&'a GateOutcome]) -> Vec<(&'a GateOutcome, &'a Fix)> {
    let mut out: Vec<(&GateOutcome, &Fix)> = Vec::new();
    for gate in gates {
        if let Some(fix) = &gate.fix
            && !out.iter().any(|(_, f)| *f == fix)
        {
            out.push((gate, fix));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_table_is_consistent() {
        for (i, gate) in GATES.iter().enumerate() {
            assert!(gate.action.starts_with("check:"), "{}", gate.name);
            assert_eq!(gate_key(gate.action).as_deref(), Some(gate.name));
            assert!(
                GATES[..i]
                    .iter()
                    .all(|g| g.name != gate.name && g.action != gate.action),
                "{} is in the table twice",
                gate.name
            );
        }
        assert_eq!(
            of_stage(Stage::Guard).map(|g| g.name).collect::<Vec<_>>(),
            ["naming_convention", "target_policy"]
        );
        assert_eq!(
            of_stage(Stage::Review)
                .map(|g| g.action)
                .collect::<Vec<_>>(),
            [
                "check:actor",
                "check:doc-coverage",
                "check:diff-size",
                "check:agent-diff-size",
                "check:agent-paths",
                "check:secret-scan",
                "check:assistant-context",
                "check:task-list"
            ]
        );
        assert_eq!(
            of_stage(Stage::Release).map(|g| g.name).collect::<Vec<_>>(),
            ["pipeline_green", "merge_ready", "human_approval", "queue"]
        );
        assert_eq!(gate_key("check:queue").as_deref(), Some("queue"));
        // SPEC names it: `pipeline_green` ← `check:pipeline`.
        assert_eq!(
            gate_key("check:pipeline").as_deref(),
            Some("pipeline_green")
        );
    }

    #[test]
    fn checks_outside_the_table_map_dashes_to_underscores() {
        assert_eq!(
            gate_key("check:secret-scan").as_deref(),
            Some("secret_scan")
        );
        assert_eq!(gate_key("action:comment"), None);
    }
}
