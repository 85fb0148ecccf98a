//! A stop: the plan goes idle at once and is kept; the action in flight is cut (a walk
//! ends where the bot is, a placement is not made) unless the world cannot take it
//! back half done (a server: a placement or a craft finishes first); the bot says what
//! it stopped and what "go on" will do.

use gatecrew_protocol::trace::{PlanOp, SayKind};

use super::Partner;

impl Partner {
    /// Stops on the person's line `text`; returns the name of the update.
    pub(super) fn halt_now(&mut self, text: &str) -> &'static str {
        let doing = self.plan.next_leaf().map(|n| self.plan.label(n).to_owned());
        let up = self.plan.stop();
        // The executor's action in flight is cancelled by the driver in this tick: a
        // walk ends where the bot is, a placement is not made (on a server a placement
        // or a craft finishes: see `finish_actions_on_stop`).
        let running = self.own_action.filter(|_| self.busy);
        let cuttable = running.is_some_and(|a| {
            !self.stop_finishes
                || matches!(a, gatecrew_world::Action::MoveTo { .. } | gatecrew_world::Action::Mine { .. })
        });
        let cut = running.filter(|_| cuttable);
        let finishing = running.filter(|_| !cuttable);
        self.halt = cut.is_some();
        self.stopped_by = Some((self.now, text.to_owned()));
        self.log.feedback.push("stop".into());
        self.remember("interrupted");
        self.note_plan(PlanOp::Stop, &up, &[]);
        let text = self.stopped_line(doing, cut, finishing, text);
        self.say(SayKind::Preview, text);
        "stop"
    }

    /// The bot's line after a stop: what it stopped, and what "go on" will do; a
    /// question asked in the same line is answered too.
    fn stopped_line(
        &mut self,
        doing: Option<String>,
        cut: Option<gatecrew_world::Action>,
        finishing: Option<gatecrew_world::Action>,
        text: &str,
    ) -> String {
        let mut s = match doing {
            Some(d) => format!("Stopped: I was going to {d}."),
            None => "Stopped.".to_owned(),
        };
        s.push_str(match cut {
            Some(gatecrew_world::Action::MoveTo { .. }) => " I stop walking where I am.",
            Some(gatecrew_world::Action::Place { .. }) => " The block I was placing is not placed.",
            Some(_) => " What I was doing is left undone.",
            None => "",
        });
        s.push_str(match finishing {
            Some(gatecrew_world::Action::Place { .. }) => " I finish placing the block I started, then stop.",
            Some(gatecrew_world::Action::Craft { .. }) => " I finish the craft I started, then stop.",
            Some(_) => " I finish what I started, then stop.",
            None => "",
        });
        let mut probe = self.plan.clone();
        probe.resume();
        s.push_str(&match probe.next_leaf() {
            Some(n) => format!(" I am idle; say \"go on\" and I will {}.", probe.label(n)),
            None => " I am idle; tell me what to do next.".to_owned(),
        });
        if text.contains('?') {
            let reply = self.chat(text);
            if reply != "OK." {
                s.push(' ');
                s.push_str(&reply);
            }
        }
        s
    }
}
