//! Game chat as players type it, in sessions on the partner world with the
//! bed in progress: each family of indirect phrasings (a request round an add, an add
//! tied to the end of the work, a step the person has or does, "actually ... first"),
//! with slang and typos, is read as its intent; a stop in any of eight languages halts
//! in the tick and its go-on resumes; a line the parser is unsure of gets one question
//! and the answer acts; a new task that would throw the person's bed away is asked
//! first and the plan is kept on "no".

use gatecrew_protocol::trace::{Event, EventKind};

use super::robust::{Collect, session, setup};

const BED: &str = "make a white bed";
/// When the second line comes: the bed's first steps are under way.
const AT: u64 = 30;
/// Lines are merged for this many ticks, then handled.
const MERGE: u64 = 5;

fn bed_then(lines: &[&str]) -> Collect {
    let s = setup("configs/hitl/partner.toml");
    let mut all = vec![(0, BED.to_owned())];
    all.extend(lines.iter().enumerate().map(|(i, l)| (AT + 40 * i as u64, (*l).to_owned())));
    session(&s, &all, MERGE)
}

/// The intent read from the line typed at tick `t` (handled then, or after the merge
/// window).
fn intent_at(events: &[Event], t: u64) -> Option<String> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::Intent(i) if (t..=t + MERGE).contains(&e.t) => Some(i.intent.as_str().to_owned()),
        _ => None,
    })
}

/// The plan operations on the line typed at tick `t`.
fn ops_at(events: &[Event], t: u64) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Plan(p) if (t..=t + MERGE).contains(&e.t) => Some(p.op.as_str().to_owned()),
            _ => None,
        })
        .collect()
}

/// The bot's answers to the line typed at tick `t`.
fn said_at(c: &Collect, t: u64) -> Vec<String> {
    c.said.iter().filter(|(s, _)| (t..=t + MERGE).contains(s)).map(|(_, l)| l.clone()).collect()
}

/// Whether the bed was never replaced from tick `t` on.
fn bed_kept_after(c: &Collect, t: u64) -> bool {
    !c.events.iter().any(|e| e.t >= t && matches!(&e.kind, EventKind::Plan(p) if p.op.as_str() == "new_task"))
}

#[test]
fn each_family_of_indirect_phrasings_is_read_as_its_intent() {
    let families: [(&str, &[&str]); 4] = [
        (
            "add",
            &[
                "can u also get 4 torches",
                "could you also craft 2 sticks pls",
                "make a chest when ur done",
                "when youre done can u make a furnace",
                "once ur finished with the bed, get 5 cobblestone",
                "get a crafitng tabel too",
            ],
        ),
        (
            "delete",
            &[
                "you dont need the wool",
                "u dont need to make planks",
                "no need 4 planks",
                "leave the wool, i have some",
                "leave the planks, i have one",
                "i already have wool",
                "ill make the planks myself",
                "i can get the wool myself",
                "the planks arent needed",
                "skip the plnks",
            ],
        ),
        (
            "switch",
            &[
                "actually get the wool first",
                "actually, the wool first",
                "ok actually do the wool first pls",
                "wool frist",
            ],
        ),
        ("stop", &["STOP!!!", "w8", "hold on pls", "stpo"]),
    ];
    let mut wrong = Vec::new();
    for (want, lines) in families {
        for line in lines {
            let c = bed_then(&[line]);
            let got = intent_at(&c.events, AT);
            if got.as_deref() != Some(want) {
                wrong.push(format!("{line:?}: {got:?}, said {:?}", said_at(&c, AT)));
            }
            // Whatever the reading, the bed is never thrown away by it.
            if !bed_kept_after(&c, AT) && want != "delete" {
                wrong.push(format!("{line:?}: the bed is gone"));
            }
            if want == "delete" && !ops_at(&c.events, AT).contains(&"delete".to_owned()) {
                wrong.push(format!("{line:?}: no delete, said {:?}", said_at(&c, AT)));
            }
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

/// A stop in each language halts the bed in the tick it is typed; the language's
/// go-on resumes it.
#[test]
fn a_stop_in_any_of_eight_languages_halts_in_the_tick_and_its_go_on_resumes() {
    let pairs = [
        ("stop", "go on"),
        ("¡para!", "sigue"),
        ("pare agora", "continua"),
        ("arrête", "continue"),
        ("warte", "mach weiter"),
        ("стой", "продолжай"),
        ("停下", "继续"),
        ("待って", "続けて"),
    ];
    let mut wrong = Vec::new();
    for (stop, go) in pairs {
        let c = bed_then(&[stop, go]);
        if !ops_at(&c.events, AT).contains(&"stop".to_owned()) {
            wrong.push(format!("{stop:?}: no stop at {AT}, said {:?}", said_at(&c, AT)));
        }
        if !ops_at(&c.events, AT + 40).contains(&"resume".to_owned()) {
            wrong.push(format!("{go:?}: no resume, said {:?}", said_at(&c, AT + 40)));
        }
        let acted_while_stopped = c
            .events
            .iter()
            .any(|e| e.t > AT && e.t < AT + 40 && matches!(&e.kind, EventKind::Action { agent, .. } if agent.0 == 0));
        if acted_while_stopped {
            wrong.push(format!("{stop:?}: the bot started an action while stopped"));
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

/// A line naming a step with no order in it is asked about, not acted on; the answer
/// picks the reading.
#[test]
fn an_unsure_line_gets_one_question_and_the_answer_acts() {
    let c = bed_then(&["the planks", "2"]);
    let q = said_at(&c, AT);
    assert!(q.iter().any(|l| l.contains("not sure") && l.contains("drop")), "{q:?}");
    assert!(ops_at(&c.events, AT).is_empty(), "acted on an unsure line: {:?}", ops_at(&c.events, AT));
    assert!(ops_at(&c.events, AT + 40).contains(&"delete".to_owned()), "said {:?}", said_at(&c, AT + 40));
}

/// A bare goal while the person's bed is under way is a new task only after a yes:
/// "no" keeps the bed, "both" adds the goal beside it, "yes" replaces it; a line that
/// says outright that the bed goes is not asked about.
#[test]
fn a_new_task_that_would_drop_the_bed_is_confirmed_first() {
    let c = bed_then(&["get 10 oak logs", "no"]);
    let q = said_at(&c, AT);
    assert!(q.iter().any(|l| l.starts_with("Drop \"obtain 1 white bed\" and obtain 10 oak log instead?")), "{q:?}");
    assert!(ops_at(&c.events, AT).is_empty(), "the plan changed before the answer");
    assert!(bed_kept_after(&c, AT + 40), "the bed is gone after \"no\"");

    let c = bed_then(&["get 10 oak logs", "both"]);
    assert!(ops_at(&c.events, AT + 40).contains(&"add".to_owned()), "{:?}", said_at(&c, AT + 40));
    assert!(bed_kept_after(&c, AT + 40));

    let c = bed_then(&["get 10 oak logs", "yes"]);
    assert!(ops_at(&c.events, AT + 40).contains(&"new_task".to_owned()), "{:?}", said_at(&c, AT + 40));

    for outright in ["forget the bed, get 10 oak logs", "make a chest instead", "new task: get 10 oak logs"] {
        let c = bed_then(&[outright]);
        assert!(ops_at(&c.events, AT).contains(&"new_task".to_owned()), "{outright:?}: {:?}", said_at(&c, AT));
    }
}
