//! One (merged) line, from its classification to the graph update and the bot's one
//! line back: the preview of what it will do now, or one clarifying question.

use gatecrew_protocol::trace::{PlanOp, SayKind};
use std::time::Instant;

use gatecrew_protocol::trace::{EventKind, HumanLine, IntentNote};

use super::{Partner, Question};
use crate::classify::{Classified, Context};
use crate::goal::{Goal, read_goal_checked};
use crate::intent::{Intent, IntentType};
use crate::merge::Batch;
use crate::plan::StepId;
use crate::plan::ops::Update;
use crate::plan::repair::repair;
use crate::resolve::{Resolution, choose, resolve};
use crate::words::{coords, words};

impl Partner {
    pub(super) fn handle(&mut self, batch: &Batch) {
        let typed = batch.text();
        let _span = tracing::debug_span!("hitl_line", agent = %self.cfg.agent, tick = self.now.0).entered();
        self.events.push(EventKind::Human(HumanLine {
            agent: self.cfg.agent,
            text: typed.clone(),
            lines: batch.lines.len() as u32,
        }));
        // The line as the partner reads it (slang spelled out, typos fixed); the trace
        // keeps it as typed.
        let text = crate::chat::read(&typed, &self.vocab).text;
        let c = {
            let ctx = Context {
                plan: &self.plan,
                question: self.question.as_ref().map(|q| q.text()),
                vocab: &self.vocab,
                data: &self.data,
            };
            self.classifier.classify(&text, &ctx)
        };
        metrics::histogram!("gatecrew_hitl_classify_ms", "by" => c.by.as_str()).record(c.latency_ms);
        self.latencies.push(("classify", c.latency_ms));
        let start = Instant::now();
        let op = self.apply(&c, &text);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        metrics::histogram!("gatecrew_hitl_update_ms", "op" => op).record(ms);
        self.latencies.push((op, ms));
    }

    pub(super) fn note_intent(
        &mut self,
        c: &Classified,
        intent: &Intent,
        resolved: Option<StepId>,
        options: &[StepId],
    ) {
        self.events.push(EventKind::Intent(IntentNote {
            agent: self.cfg.agent,
            intent: intent.kind,
            node: intent.node.clone(),
            parent: intent.parent.clone(),
            classifier: c.by,
            fallback: c.fallback,
            resolved: resolved.map(|n| n.index() as u32),
            options: options.iter().map(|n| n.index() as u32).collect(),
        }));
    }

    /// Applies a classified line; returns the name of the update (for latencies).
    pub(super) fn apply(&mut self, c: &Classified, text: &str) -> &'static str {
        let intent = c.intent.clone();
        if let Some(q) = self.question.take() {
            let command = matches!(
                intent.kind,
                IntentType::Switch | IntentType::Add | IntentType::Delete | IntentType::Stop | IntentType::NewTask
            );
            match q {
                Question::Which { intent: asked, options, .. } if !command || intent.kind == IntentType::Answer => {
                    if let Some(n) = choose(&self.plan, text, &options) {
                        self.note_intent(c, &Intent::about(IntentType::Answer, text), Some(n), &[]);
                        return self.on_node(asked.kind, n, &asked);
                    }
                    self.note_intent(c, &intent, None, &[]);
                    let p = self.plan.preview();
                    self.say(
                        SayKind::Answer,
                        format!("I could not tell which one you meant, so I leave the plan as it is. {p}"),
                    );
                    return "answer";
                }
                Question::WhichPart { intent: asked, options, .. } if !command || intent.kind == IntentType::Answer => {
                    return self.answer_part(c, text, &asked, options);
                }
                Question::Meant { options, .. } => {
                    if let Some(op) = self.answer_meant(c, text, options) {
                        return op;
                    }
                }
                Question::Confirm { goal, .. } => {
                    if let Some(op) = self.answer_confirm(c, text, goal) {
                        return op;
                    }
                }
                Question::Where { item, .. } => {
                    if let Some((from, _)) = coords(&words(text)) {
                        self.note_intent(c, &Intent::about(IntentType::Answer, text), None, &[]);
                        return self.add_fetch(item, from, None, text);
                    }
                }
                _ => {}
            }
        }
        // "Go to my house": a told landmark is a place to walk to now.
        if intent.kind != IntentType::Stop {
            match self.trip(text) {
                Some(Ok((name, to))) => {
                    self.note_intent(c, &Intent::about(IntentType::Switch, format!("my {name}")), None, &[]);
                    return self.go_to(&name, to);
                }
                Some(Err(name)) if self.vocab.items_in(&words(text)).is_empty() => {
                    self.note_intent(c, &intent, None, &[]);
                    let p = self.plan.preview();
                    self.say(
                        SayKind::Answer,
                        format!(
                            "I don't know where your {name} is: tell me (\"my {name} is at x y z\", or \"my {name} is here\" where I stand). {p}"
                        ),
                    );
                    return "chat";
                }
                _ => {}
            }
        }
        match intent.kind {
            IntentType::Switch => match &intent.node {
                None => {
                    self.note_intent(c, &intent, Some(self.plan.root()), &[]);
                    self.resume()
                }
                Some(words) => {
                    let r = resolve(&self.plan, words, &self.vocab, &self.data);
                    if r != Resolution::None {
                        return self.on_resolved(c, &intent, r);
                    }
                    self.note_intent(c, &intent, None, &[]);
                    // Not in the plan: a goal to add and work on now.
                    match read_goal_checked(words, &self.vocab) {
                        Some(Err(bad)) => self.bad_count(&bad, "switch"),
                        Some(Ok(goal @ Goal::Obtain { .. })) => {
                            let root = self.plan.root();
                            let n = self.add_goal(goal, root, text, false);
                            let _ = self.plan.switch_to(n);
                            self.dirty = true;
                            let p = self.plan.preview();
                            self.say(SayKind::Preview, format!("That was not in my plan; added it. {p}"));
                            "switch"
                        }
                        _ => {
                            let p = self.plan.preview();
                            self.say(SayKind::Answer, format!("There is no \"{words}\" in my plan. {p}"));
                            "switch"
                        }
                    }
                }
            },
            IntentType::Delete => {
                let Some(words) = intent.node.clone() else {
                    self.note_intent(c, &intent, None, &[]);
                    let p = self.plan.preview();
                    self.say(SayKind::Answer, format!("What should I drop? {p}"));
                    return "delete";
                };
                let r = resolve(&self.plan, &words, &self.vocab, &self.data);
                if r != Resolution::None {
                    return self.on_resolved(c, &intent, r);
                }
                self.note_intent(c, &intent, None, &[]);
                let p = self.plan.preview();
                self.say(SayKind::Answer, format!("There is no \"{words}\" in my plan. {p}"));
                "delete"
            }
            IntentType::Add => self.on_add(c, &intent, text),
            IntentType::Stop => {
                self.note_intent(c, &intent, None, &[]);
                self.halt_now(text)
            }
            IntentType::NewTask => {
                self.note_intent(c, &intent, None, &[]);
                let goal = intent
                    .node
                    .as_deref()
                    .and_then(|w| read_goal_checked(w, &self.vocab))
                    .or_else(|| read_goal_checked(text, &self.vocab));
                match goal {
                    // Nothing of the person's is thrown away on a reading: asked first.
                    Some(Ok(goal)) if self.needs_confirm(text) => self.ask_confirm(goal),
                    Some(Ok(goal)) => self.new_task(goal),
                    Some(Err(bad)) => self.bad_count(&bad, "new_task"),
                    None => {
                        let p = self.plan.preview();
                        self.say(SayKind::Answer, format!("I did not understand the new task. {p}"));
                        "new_task"
                    }
                }
            }
            IntentType::Chat | IntentType::Answer => {
                if intent.unsure {
                    if let Some(op) = self.ask_meant(c, text) {
                        return op;
                    }
                }
                self.note_intent(c, &Intent::bare(IntentType::Chat), None, &[]);
                let reply = self.chat(text);
                let p = self.plan.preview();
                self.say(SayKind::Answer, format!("{reply} {p}"));
                "chat"
            }
        }
    }

    pub(super) fn ask(&mut self, intent: Intent, options: Vec<StepId>) -> &'static str {
        let list: Vec<String> =
            options.iter().enumerate().map(|(i, n)| format!("{}) {}", i + 1, self.plan.label(*n))).collect();
        let text = format!("Which one do you mean: {}?", list.join(", "));
        self.question = Some(Question::Which { intent, options, text: text.clone() });
        self.say(SayKind::Question, text);
        "question"
    }

    /// A switch or delete on a resolved node (also after an answer).
    pub(super) fn on_node(&mut self, kind: IntentType, n: StepId, intent: &Intent) -> &'static str {
        match kind {
            IntentType::Delete => {
                if n == self.plan.root() {
                    let p = self.plan.preview();
                    self.say(SayKind::Answer, format!("I cannot drop the whole plan that way; say stop. {p}"));
                    return "delete";
                }
                let label = self.plan.label(n).to_owned();
                match self.plan.delete(n) {
                    Ok(up) => {
                        let fixes = repair(&mut self.plan);
                        let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
                        self.note_plan(PlanOp::Delete, &up, &rules);
                        self.log.feedback.push(format!("delete: {label}"));
                        let p = self.plan.preview();
                        self.say(SayKind::Preview, format!("I will not {label}. {p}"));
                    }
                    Err(e) => self.say(SayKind::Answer, format!("I cannot drop that: {e}.")),
                }
                "delete"
            }
            IntentType::Add => {
                // The answer chose the parent of an add.
                let goal = intent.node.as_deref().and_then(|w| read_goal_checked(w, &self.vocab));
                match goal {
                    Some(Ok(g)) => {
                        self.add_goal(g, n, intent.node.as_deref().unwrap_or_default(), true);
                    }
                    Some(Err(bad)) => {
                        self.bad_count(&bad, "add");
                    }
                    None => self.say(SayKind::Answer, "I did not catch what to add.".into()),
                }
                "add"
            }
            _ if intent.later => self.put_off(n),
            _ => {
                let from = self.plan.active().map(|a| self.plan.label(a).to_owned());
                match self.plan.switch_to(n) {
                    Ok(up) => {
                        let fixes = repair(&mut self.plan);
                        let rules: Vec<&'static str> = fixes.iter().map(|f| f.rule).collect();
                        self.note_plan(PlanOp::Switch, &up, &rules);
                        self.log.feedback.push(format!("switch: {}", self.plan.label(n)));
                        let p = self.plan.preview();
                        match from.filter(|f| f != self.plan.label(n)) {
                            Some(f) => self.say(SayKind::Preview, format!("OK, I'll stop \"{f}\" for now. {p}")),
                            None => self.say(SayKind::Preview, p),
                        }
                    }
                    Err(e) => self.say(SayKind::Answer, format!("I cannot switch to that: {e}.")),
                }
                "switch"
            }
        }
    }

    fn resume(&mut self) -> &'static str {
        let up = if self.plan.idle() {
            self.plan.resume()
        } else {
            Update { from: None, to: self.plan.active(), ..Update::default() }
        };
        self.note_plan(PlanOp::Resume, &up, &[]);
        let p = self.plan.preview();
        self.say(SayKind::Preview, format!("Going on. {p}"));
        "switch"
    }
}
