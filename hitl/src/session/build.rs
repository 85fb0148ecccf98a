//! The build as named parts in the session: a part named in a switch or a delete is
//! gathered into a node of its own and acted on; "X can wait" puts a node off; an
//! ambiguous part gets one question; a part left out earlier can be added back.

use super::{Partner, Question};
use crate::classify::Classified;
use crate::intent::{Intent, IntentType};
use crate::parts::{PartMatch, PartRef, find_part, part_label, plan_build};
use crate::plan::repair::repair;
use crate::plan::{Group, Origin, StepId};
use crate::resolve::Resolution;
use crate::words::words;
use gatecrew_protocol::trace::{PlanOp, SayKind};

impl Partner {
    /// A switch or a delete whose words resolved to something in the plan.
    pub(super) fn on_resolved(&mut self, c: &Classified, intent: &Intent, r: Resolution) -> &'static str {
        match r {
            Resolution::One(n) => {
                self.note_intent(c, intent, Some(n), &[]);
                self.on_node(intent.kind, n, intent)
            }
            Resolution::Many(options) => {
                self.note_intent(c, intent, None, &options);
                self.ask(intent.clone(), options)
            }
            Resolution::Part(p) => self.on_part(c, intent, &p),
            Resolution::Parts(options) => {
                self.note_intent(c, intent, None, &[]);
                let list: Vec<String> =
                    options.iter().enumerate().map(|(i, p)| format!("{}) {}", i + 1, p.name)).collect();
                let text = format!("Which one do you mean: {}?", list.join(", "));
                self.question = Some(Question::WhichPart { intent: intent.clone(), options, text: text.clone() });
                self.say(SayKind::Question, text);
                "question"
            }
            Resolution::None => "none",
        }
    }

    fn on_part(&mut self, c: &Classified, intent: &Intent, p: &PartRef) -> &'static str {
        let label = part_label(&p.name, p.leaves.len());
        match self.plan.gather(&label, &p.leaves) {
            Some(n) => {
                self.note_intent(c, intent, Some(n), &[]);
                self.on_node(intent.kind, n, intent)
            }
            None => {
                self.note_intent(c, intent, None, &[]);
                let pv = self.plan.preview();
                self.say(SayKind::Answer, format!("I cannot act on {} on its own. {pv}", p.name));
                "none"
            }
        }
    }

    /// The answer to "which part do you mean?".
    pub(super) fn answer_part(
        &mut self,
        c: &Classified,
        text: &str,
        asked: &Intent,
        options: Vec<PartRef>,
    ) -> &'static str {
        let names: Vec<String> = options.iter().map(|o| o.name.clone()).collect();
        match choose_name(text, &names) {
            Some(i) => {
                let chosen = options[i].clone();
                self.on_part(c, asked, &chosen)
            }
            None => {
                self.note_intent(c, &Intent::bare(IntentType::Answer), None, &[]);
                let p = self.plan.preview();
                self.say(
                    SayKind::Answer,
                    format!("I could not tell which one you meant, so I leave the plan as it is. {p}"),
                );
                "answer"
            }
        }
    }

    /// "X can wait": `n` goes after its siblings.
    pub(super) fn put_off(&mut self, n: StepId) -> &'static str {
        let label = self.plan.label(n).to_owned();
        match self.plan.postpone(n) {
            Ok(up) => {
                let fixes = repair(&mut self.plan);
                let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
                self.note_plan(PlanOp::Later, &up, &rules);
                self.log.feedback.push(format!("later: {label}"));
                let p = self.plan.preview();
                self.say(SayKind::Preview, format!("OK, \"{label}\" can wait. {p}"));
            }
            Err(e) => self.say(SayKind::Answer, format!("I cannot put that off: {e}.")),
        }
        "switch"
    }

    /// The build of this bot's share, as parts (unlinked); `None` without a share.
    pub(super) fn plan_my_build(&mut self, origin: Origin) -> Option<StepId> {
        if self.share_cells.is_empty() {
            return None;
        }
        let label = self.cfg.planner.share_label.clone();
        let build = plan_build(&mut self.plan, &self.facts, &self.share_cells, label, &self.data, origin);
        // Blocks it lacks are planned once it has looked around (`materials`).
        self.materials_due = Some(build);
        Some(build)
    }

    /// "Add the windows back": a part of the share no longer in the plan is planned
    /// again under the build. `None` when the words name no such part.
    pub(super) fn add_part_back(&mut self, words_: &str) -> Option<&'static str> {
        let build = self.plan.ids().into_iter().find(|n| self.plan.group(*n) == Some(Group::Build))?;
        // The whole share, planned aside, tells which cells the words name.
        let mut whole = crate::plan::Plan::new("scratch");
        let b = plan_build(&mut whole, &self.facts, &self.share_cells, "scratch".into(), &self.data, Origin::Person);
        let root = whole.root();
        whole.link(root, b);
        let PartMatch::One(p) = find_part(&whole, words_, &self.data) else { return None };
        let have: std::collections::BTreeSet<u32> =
            crate::parts::place_leaves(&self.plan).into_iter().map(|(_, f)| f.cell).collect();
        let missing: Vec<crate::parts::CellFacts> = p
            .leaves
            .iter()
            .filter_map(|n| match whole.step(*n).kind {
                crate::plan::Kind::Leaf(crate::plan::Leaf::Place(f)) if !have.contains(&f.cell) => Some(f),
                _ => None,
            })
            .collect();
        if missing.is_empty() {
            let pv = self.plan.preview();
            self.say(SayKind::Answer, format!("{}: already in my plan. {pv}", capital(&p.name)));
            return Some("add");
        }
        let part = self.plan.add_step(crate::plan::Kind::AllOf, part_label(&p.name, missing.len()), Origin::Person);
        self.plan.set_group(part, Group::Part);
        for f in &missing {
            let leaf = self.plan.add_step(
                crate::plan::Kind::Leaf(crate::plan::Leaf::Place(*f)),
                crate::parts::leaf_label(&self.data, f),
                Origin::Person,
            );
            self.plan.link(part, leaf);
        }
        let up = self.plan.attach(build, part, missing.len() + 1, false).unwrap_or_default();
        let fixes = repair(&mut self.plan);
        let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
        self.note_plan(PlanOp::Add, &up, &rules);
        self.log.feedback.push(format!("add: {}", p.name));
        // A build that had finished goes on.
        self.plan.set_state(build, crate::plan::State::Pending);
        let pv = self.plan.preview();
        self.say(SayKind::Preview, format!("Added {} back. {pv}", p.name));
        Some("add")
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// The option an answer picks among names: an ordinal, or words only it has.
fn choose_name(answer: &str, names: &[String]) -> Option<usize> {
    const ORD: [(&str, usize); 12] = [
        ("1", 0),
        ("one", 0),
        ("first", 0),
        ("1st", 0),
        ("2", 1),
        ("two", 1),
        ("second", 1),
        ("2nd", 1),
        ("3", 2),
        ("three", 2),
        ("third", 2),
        ("3rd", 2),
    ];
    let ws = words(answer);
    // Words only one option has ("the south one") first, then an ordinal ("2", "the
    // second"): "one" in "the south one" is not the first option.
    let own = |i: usize| -> usize {
        let mine = words(&names[i]);
        ws.iter()
            .filter(|w| mine.contains(w) && !names.iter().enumerate().any(|(j, o)| j != i && words(o).contains(w)))
            .count()
    };
    let scores: Vec<usize> = (0..names.len()).map(own).collect();
    let best = scores.iter().copied().max().unwrap_or(0);
    if best > 0 && scores.iter().filter(|s| **s == best).count() == 1 {
        return scores.iter().position(|s| *s == best);
    }
    if let Some(i) = ws.iter().find_map(|w| ORD.iter().find(|(o, _)| o == w).map(|(_, i)| *i)) {
        return (i < names.len()).then_some(i);
    }
    ws.iter().any(|w| w == "last").then(|| names.len().checked_sub(1)).flatten()
}
