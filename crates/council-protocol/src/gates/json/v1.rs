//! Version 1 (SPEC: "A gate's verdict has one JSON shape"):
//!
//! ```json
//! {"gate": "naming_convention", "action": "check:branch-name",
//!  "result": "PASS|FAIL|SKIPPED|PENDING", "message": "…",
//!  "fix": null | {"advice": "…", "commands": ["…"]}}
//! ```
//!
//! `message` and `advice` are plain text (the Markdown forms are for comments);
//! `commands` are whole shell command lines.

use serde::{Deserialize, Serialize};

use crate::gates::{Fix, GateOutcome, Verdict};

/// One gate's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateVerdict {
    /// The key in the Context Object's `gates` (`naming_convention`).
    pub gate: String,
    /// The timeline action (`check:branch-name`).
    pub action: String,
    pub result: GateResult,
    pub message: String,
    pub fix: Option<GateFix>,
}

/// What a gate decided. `Skipped`: the gate was not run for this subject (a policy
/// section that turns it off, a class of pull request it does not apply to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum GateResult {
    Pass,
    Fail,
    Skipped,
    Pending,
}

/// How to make a failed gate pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateFix {
    pub advice: String,
    pub commands: Vec<String>,
}

impl From<Verdict> for GateResult {
    fn from(verdict: Verdict) -> GateResult {
        match verdict {
            Verdict::Pass => GateResult::Pass,
            Verdict::Fail => GateResult::Fail,
            Verdict::Pending => GateResult::Pending,
        }
    }
}

impl From<&Fix> for GateFix {
    fn from(fix: &Fix) -> GateFix {
        GateFix {
            advice: fix.advice.plain(),
            commands: fix.commands.clone(),
        }
    }
}

impl From<&GateOutcome> for GateVerdict {
    fn from(outcome: &GateOutcome) -> GateVerdict {
        GateVerdict {
            gate: outcome.gate.to_string(),
            action: outcome.action.to_string(),
            result: outcome.verdict.into(),
            message: outcome.message.plain(),
            fix: outcome.fix.as_ref().map(GateFix::from),
        }
    }
}

impl GateVerdict {
    /// The verdicts of `outcomes`, in order.
    pub fn all(outcomes: &[GateOutcome]) -> Vec<GateVerdict> {
        outcomes.iter().map(GateVerdict::from).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gates::guard::evaluate_branch;
    use crate::policy::Policy;

    #[test]
    fn a_verdict_has_the_one_shape_spec_names() {
        let policy = Policy::parse(
            "branches:\n  rules:\n    - name: feature\n      pattern: \"feature/*\"\n      targets: [develop]\n",
            ".github/council.yml",
        )
        .unwrap();
        let failing = GateVerdict::all(&evaluate_branch(&policy, "fix-typo", "develop"));
        insta::assert_json_snapshot!(failing[0], @r#"
        {
          "gate": "naming_convention",
          "action": "check:branch-name",
          "result": "FAIL",
          "message": "Branch \"fix-typo\" matches no naming rule of .github/council.yml. Allowed: feature/* → develop.",
          "fix": {
            "advice": "rename the branch and open a new pull request into \"develop\" (renaming the head branch of an open pull request closes it). Run this, replacing each <name> with a name (no /):",
            "commands": [
              "git branch -m fix-typo 'feature/<name>' && git push -u origin 'feature/<name>' && git push origin --delete fix-typo"
            ]
          }
        }
        "#);
        let passing = GateVerdict::all(&evaluate_branch(&policy, "feature/login", "develop"));
        let json = serde_json::to_value(&passing[1]).unwrap();
        assert_eq!(json["result"], "PASS");
        assert!(json["fix"].is_null(), "null, not absent: {json}");
        let back: GateVerdict = serde_json::from_value(json).unwrap();
        assert_eq!(back, passing[1]);
    }

    #[test]
    fn every_result_spells_as_spec_says() {
        for (result, text) in [
            (GateResult::Pass, "PASS"),
            (GateResult::Fail, "FAIL"),
            (GateResult::Skipped, "SKIPPED"),
            (GateResult::Pending, "PENDING"),
        ] {
            assert_eq!(serde_json::to_value(result).unwrap(), text);
        }
    }
}
