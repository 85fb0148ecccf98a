//! Asking before acting (paper 003: one clarifying question): a line the parser could
//! not read for sure ("the planks", "wool pls") gets the question of what was meant,
//! with the readings that fit the plan as options; a reading that would throw the
//! current plan away (a new task while a goal the person asked for is open in it)
//! is confirmed first ("Drop "obtain 1 white bed" and obtain 1 chest instead?"),
//! unless the line says so outright ("instead", "new task:", "forget the bed, ...",
//! "stop what you're doing and ..."). Nothing is thrown away on a guess.

use gatecrew_protocol::trace::SayKind;

use super::{Partner, Question};
use crate::classify::Classified;
use crate::goal::{Goal, read_goal_checked};
use crate::intent::{Intent, IntentType};
use crate::plan::Origin;
use crate::resolve::{Resolution, resolve};
use crate::stop::{Halt, halt};
use crate::words::words;

/// Words that answer a yes-or-no question with yes, in the languages of the stop rule.
const YES: [&str; 22] = [
    "yes",
    "y",
    "yeah",
    "sure",
    "ok",
    "okay",
    "yess",
    "correct",
    "right",
    "confirm",
    "affirmative",
    "si",
    "oui",
    "ja",
    "sim",
    "да",
    "はい",
    "是",
    "好",
    "对",
    "definitely",
    "absolutely",
];
/// ... and with no.
const NO: [&str; 16] = [
    "no",
    "n",
    "nope",
    "nah",
    "keep",
    "non",
    "nein",
    "nao",
    "não",
    "нет",
    "いいえ",
    "不",
    "negative",
    "neither",
    "dont",
    "nothing",
];
/// ... and with "both" (add the new goal beside the plan).
const BOTH: [&str; 7] = ["both", "also", "add", "too", "and", "after", "later"];

/// Words that say outright that the plan is to be replaced.
const BREAKS: [&str; 9] = ["instead", "rather", "forget", "scrap", "ditch", "scratch", "new", "change", "cancel"];

/// An answer's verdict on a yes-or-no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum YesNo {
    Yes,
    No,
    Both,
}

fn yes_no(text: &str) -> Option<YesNo> {
    let ws = words(text);
    let has = |v: &[&str]| ws.iter().any(|w| v.contains(&w.as_str()));
    // "no, do both" and "yes, both" are both; "no" outweighs a "yes" that is a filler.
    if has(&BOTH) && ws.len() <= 4 {
        return Some(YesNo::Both);
    }
    match (ws.first().map(String::as_str), has(&NO), has(&YES)) {
        (Some(f), _, _) if NO.contains(&f) => Some(YesNo::No),
        (Some(f), _, _) if YES.contains(&f) => Some(YesNo::Yes),
        (_, true, _) => Some(YesNo::No),
        (_, false, true) => Some(YesNo::Yes),
        _ if ["do it", "go ahead", "go for it", "please do"].iter().any(|p| words(p) == ws) => Some(YesNo::Yes),
        _ => None,
    }
}

impl Partner {
    /// Whether a new task in place of this plan needs the person's yes: the plan holds
    /// an open goal the person asked for (the crew's share is the crew's, replaced as
    /// paper 000's new task says), and the line does not say outright that the plan
    /// goes.
    pub(super) fn needs_confirm(&self, text: &str) -> bool {
        let theirs = self.plan.open_goals().iter().any(|g| self.plan.step(*g).origin == Origin::Person);
        let ws = words(text);
        let outright = ws.iter().any(|w| BREAKS.contains(&w.as_str())) || halt(text) == Halt::StopThen;
        theirs && !outright
    }

    /// Asks before replacing the plan by `goal`.
    pub(super) fn ask_confirm(&mut self, goal: Goal) -> &'static str {
        let open: Vec<String> = self.plan.open_goals().iter().map(|g| format!("\"{}\"", self.plan.label(*g))).collect();
        let text = format!(
            "Drop {} and {} instead? (yes: drop it; no: keep it; both: add it after)",
            open.join(" and "),
            goal.describe(&self.data)
        );
        self.question = Some(Question::Confirm { goal, text: text.clone() });
        self.say(SayKind::Question, text);
        "question"
    }

    /// The answer to a confirmation; `None` when the line is no answer to it (a new
    /// order): the plan is kept and the line is handled as any other.
    pub(super) fn answer_confirm(&mut self, c: &Classified, text: &str, goal: Goal) -> Option<&'static str> {
        if c.intent.kind == IntentType::Stop {
            return None;
        }
        let verdict = yes_no(text);
        let op = match verdict {
            Some(YesNo::Yes) => {
                self.note_intent(c, &Intent::about(IntentType::Answer, text), None, &[]);
                self.new_task(goal)
            }
            Some(YesNo::Both) => {
                self.note_intent(c, &Intent::about(IntentType::Answer, text), Some(self.plan.root()), &[]);
                let root = self.plan.root();
                let label = goal.describe(&self.data);
                self.add_goal(goal, root, &label, true);
                "add"
            }
            Some(YesNo::No) => {
                self.note_intent(c, &Intent::about(IntentType::Answer, text), None, &[]);
                let p = self.plan.preview();
                self.say(SayKind::Answer, format!("OK, I keep my plan. {p}"));
                "answer"
            }
            None if matches!(c.intent.kind, IntentType::Answer | IntentType::Chat) => {
                self.note_intent(c, &c.intent, None, &[]);
                let p = self.plan.preview();
                self.say(SayKind::Answer, format!("I keep my plan, as I could not tell yes from no. {p}"));
                "answer"
            }
            None => return None,
        };
        Some(op)
    }

    /// A line the parser was unsure of: one question with the readings that fit, or,
    /// when none does, the chat answer.
    pub(super) fn ask_meant(&mut self, c: &Classified, text: &str) -> Option<&'static str> {
        let in_plan = !matches!(resolve(&self.plan, text, &self.vocab, &self.data), Resolution::None);
        let goal = read_goal_checked(text, &self.vocab);
        let item_goal = matches!(goal, Some(Ok(Goal::Obtain { .. })));
        let name =
            goal.and_then(Result::ok).map(|g| g.describe(&self.data)).unwrap_or_else(|| crate::parse::goal_words(text));
        let mut options = Vec::new();
        if in_plan {
            options.push(Intent::about(IntentType::Switch, text));
            options.push(Intent::about(IntentType::Delete, text));
        }
        if item_goal && !in_plan {
            options.push(Intent::about(IntentType::Add, text));
        }
        if options.is_empty() {
            return None;
        }
        self.note_intent(c, &c.intent, None, &[]);
        let list: Vec<String> = options
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let what = match o.kind {
                    IntentType::Switch => format!("work on {name} now"),
                    IntentType::Delete => format!("drop {name} from my plan"),
                    _ => format!("also {name}"),
                };
                format!("{}) {what}", i + 1)
            })
            .collect();
        let q = if options.len() == 1 {
            format!("I am not sure what you mean: should I {}? (yes / no)", &list[0][3..])
        } else {
            format!("I am not sure what you mean: should I {}?", list.join(", "))
        };
        self.question = Some(Question::Meant { options, text: q.clone() });
        self.say(SayKind::Question, q);
        Some("question")
    }

    /// The answer to "what do you mean": the reading chosen is handled as if it had
    /// been said; `None` when the line is no answer (a new order).
    pub(super) fn answer_meant(&mut self, c: &Classified, text: &str, options: Vec<Intent>) -> Option<&'static str> {
        if c.intent.kind == IntentType::Stop {
            return None;
        }
        let ws = words(text);
        let has = |v: &[&str]| ws.iter().any(|w| v.contains(&w.as_str()));
        let pick = |k: IntentType| options.iter().position(|o| o.kind == k);
        let ordinal = ["1", "2", "3"]
            .iter()
            .position(|o| has(&[o]))
            .or_else(|| ["first", "second", "third"].iter().position(|o| has(&[o])));
        let chosen = ordinal
            .filter(|i| *i < options.len())
            .or_else(|| {
                has(&["drop", "skip", "remove", "delete", "forget"]).then(|| pick(IntentType::Delete)).flatten()
            })
            .or_else(|| has(&["now", "work", "switch", "focus"]).then(|| pick(IntentType::Switch)).flatten())
            .or_else(|| has(&["add", "also", "get", "too"]).then(|| pick(IntentType::Add)).flatten())
            .or_else(|| (options.len() == 1 && yes_no(text) == Some(YesNo::Yes)).then_some(0));
        match chosen {
            Some(i) => {
                let intent = options[i].clone();
                let picked = Classified { intent, ..c.clone() };
                let words = picked.intent.node.clone().unwrap_or_default();
                Some(self.apply(&picked, &words))
            }
            None if matches!(c.intent.kind, IntentType::Answer | IntentType::Chat)
                || yes_no(text) == Some(YesNo::No) =>
            {
                self.note_intent(c, &Intent::about(IntentType::Answer, text), None, &[]);
                let p = self.plan.preview();
                self.say(SayKind::Answer, format!("OK, I leave the plan as it is. {p}"));
                Some("answer")
            }
            None => None,
        }
    }
}
