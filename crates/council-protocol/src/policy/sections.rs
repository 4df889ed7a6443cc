//! The review, release and agent-state sections: plain data with documented defaults.
//! Every list is read through `limits::list`, which refuses one longer than the limit.

use serde::Deserialize;

use super::limits;

pub(super) fn yes() -> bool {
    true
}

fn approve_label() -> String {
    "bot-approved".to_string()
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// `doc_coverage`; absent = the gate does not run.
    #[serde(default)]
    pub docs: Option<DocsGate>,
    /// `diff_size`; absent = the gate does not run.
    #[serde(default)]
    pub diff_size: Option<DiffSize>,
    #[serde(default = "yes")]
    pub secret_scan: bool,
    #[serde(default = "yes")]
    pub assistant_context: bool,
    #[serde(default)]
    pub task_list: bool,
    #[serde(default = "approve_label")]
    pub approve_label: String,
}

impl Default for Review {
    fn default() -> Self {
        Review {
            docs: None,
            diff_size: None,
            secret_scan: true,
            assistant_context: true,
            task_list: false,
            approve_label: approve_label(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocsGate {
    #[serde(deserialize_with = "limits::list")]
    pub code: Vec<String>,
    #[serde(deserialize_with = "limits::list")]
    pub docs: Vec<String>,
    #[serde(default, deserialize_with = "limits::list")]
    pub map: Vec<DocsPair>,
    #[serde(default)]
    pub skip_label: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocsPair {
    #[serde(deserialize_with = "limits::list")]
    pub code: Vec<String>,
    #[serde(deserialize_with = "limits::list")]
    pub docs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffSize {
    #[serde(default)]
    pub max_files: Option<u64>,
    #[serde(default)]
    pub max_changed_lines: Option<u64>,
    #[serde(default)]
    pub skip_label: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MergeMethod {
    #[default]
    Merge,
    Squash,
    Rebase,
}

impl MergeMethod {
    /// The REST API's `merge_method` value.
    pub fn as_str(self) -> &'static str {
        match self {
            MergeMethod::Merge => "merge",
            MergeMethod::Squash => "squash",
            MergeMethod::Rebase => "rebase",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    #[serde(default)]
    pub merge_method: MergeMethod,
    #[serde(default)]
    pub required_approvals: u32,
    #[serde(default, deserialize_with = "limits::list")]
    pub required_checks: Vec<String>,
    /// `None` = `review.approve_label`; `Some("")` = no label needed.
    #[serde(default)]
    pub require_label: Option<String>,
    #[serde(default = "yes")]
    pub neutral_is_green: bool,
    #[serde(default)]
    pub rollback: bool,
}

impl Default for Release {
    fn default() -> Self {
        Release {
            merge_method: MergeMethod::Merge,
            required_approvals: 0,
            required_checks: Vec::new(),
            require_label: None,
            neutral_is_green: true,
            rollback: false,
        }
    }
}

fn max_tool_calls() -> u64 {
    15
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentStateSection {
    #[serde(default, deserialize_with = "limits::list")]
    pub trusted_authors: Vec<String>,
    /// `metrics.tool_calls` above this warns that the agent may be looping.
    #[serde(default = "max_tool_calls")]
    pub max_tool_calls: u64,
}

impl Default for AgentStateSection {
    fn default() -> Self {
        AgentStateSection {
            trusted_authors: Vec::new(),
            max_tool_calls: max_tool_calls(),
        }
    }
}
