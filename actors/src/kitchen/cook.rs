//! A crew agent: its private state, which only its own turns touch.

use gatecrew_kitchen::MemberState;
use ractor::{Actor, ActorProcessingErr, ActorRef};

use super::messages::{CookMsg, DeskMsg};

/// The cook actor.
pub struct CookActor;

/// A cook's state: which agent it is and what it knows.
pub struct CookState {
    me: usize,
    member: MemberState,
}

impl Actor for CookActor {
    type Msg = CookMsg;
    type State = CookState;
    type Arguments = (usize, MemberState);

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        (me, member): Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(CookState { me, member })
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        state: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            CookMsg::Turn { world, desk, reply } => {
                let mut shared = ractor::call!(desk, DeskMsg::Lend)?;
                let action = shared.turn(&mut state.member, &world, state.me);
                ractor::call!(desk, DeskMsg::Return, shared)?;
                let _ = reply.send(action);
            }
            CookMsg::Observe(report, reply) => {
                state.member.observe(state.me, &report);
                let _ = reply.send(());
            }
        }
        Ok(())
    }
}
