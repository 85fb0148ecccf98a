//! MindAgent's central dispatcher: one planner, one actor.

use gatecrew_kitchen::Policy;
use ractor::{Actor, ActorProcessingErr, ActorRef};

use super::messages::DispatcherMsg;

/// The dispatcher actor.
pub struct DispatcherActor;

impl Actor for DispatcherActor {
    type Msg = DispatcherMsg;
    type State = Box<dyn Policy + Send>;
    type Arguments = Box<dyn Policy + Send>;

    async fn pre_start(
        &self,
        _myself: ActorRef<Self::Msg>,
        policy: Self::Arguments,
    ) -> Result<Self::State, ActorProcessingErr> {
        Ok(policy)
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        policy: &mut Self::State,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            DispatcherMsg::Decide(world, reply) => {
                let actions = policy.decide(&world);
                let _ = reply.send((actions, policy.lines()));
            }
            DispatcherMsg::Observe(world, report, reply) => {
                policy.observe(&world, &report);
                let _ = reply.send(());
            }
            DispatcherMsg::Counters(reply) => {
                let _ = reply.send(policy.counters());
            }
        }
        Ok(())
    }
}
