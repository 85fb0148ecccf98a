//! The board actor: the public board, the only channel between bots.

use gatecrew_protocol::{AgentId, Board, BoardError, BoardMessage, Receipt, Tick, WindowClosed};
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use ractor_cluster_derive::RactorMessage;

/// The board actor.
pub struct BoardActor;

/// Messages to the board.
#[derive(RactorMessage)]
pub enum BoardMsg {
    /// `caller` posts a message at `now`; the reply says whether it was accepted.
    Post {
        /// The posting agent (checked against the message's sender).
        caller: AgentId,
        /// What to post.
        msg: BoardMessage,
        /// The episode's tick: a window opened now closes `window_ticks` later.
        now: Tick,
        /// Accepted (with the log entry) or rejected (with the reason).
        reply: RpcReplyPort<Result<Receipt, BoardError>>,
    },
    /// Close the windows whose deadline has passed.
    Expire(Tick, RpcReplyPort<Vec<WindowClosed>>),
    /// The earliest open deadline.
    NextDeadline(RpcReplyPort<Option<Tick>>),
}

impl Actor for BoardActor {
    type Msg = BoardMsg;
    type State = Board;
    type Arguments = Board;

    async fn pre_start(&self, _myself: ActorRef<Self::Msg>, board: Board) -> Result<Self::State, ActorProcessingErr> {
        Ok(board)
    }

    async fn handle(
        &self,
        _myself: ActorRef<Self::Msg>,
        msg: Self::Msg,
        board: &mut Board,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            BoardMsg::Post { caller, msg, now, reply } => {
                let result = board.post(caller, msg, now);
                if let Err(e) = &result {
                    metrics::counter!("gatecrew_board_rejected_total", "kind" => e.kind().as_str()).increment(1);
                } else {
                    metrics::counter!("gatecrew_board_messages_total").increment(1);
                }
                let _ = reply.send(result);
            }
            BoardMsg::Expire(now, reply) => {
                let _ = reply.send(board.expire(now));
            }
            BoardMsg::NextDeadline(reply) => {
                let _ = reply.send(board.next_deadline());
            }
        }
        Ok(())
    }
}
