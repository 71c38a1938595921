//! Scripted models that game the verdict instead of fixing the bug, each on a project in the
//! shape of a real one: every game must end in a failing verdict (exit 1) that names what
//! happened, with its record and patch kept, and the honest repair of the same task must still
//! pass; under bubblewrap and without a sandbox. The moves and the checks are in `game.rs`.

/// One test per sandbox for each game: `GAME::bwrap` and `GAME::none`.
macro_rules! in_both_sandboxes {
    ($($game:ident,)*) => {
        $(
            mod $game {
                #[test]
                fn bwrap() {
                    super::$game("bwrap")
                }

                #[test]
                fn none() {
                    super::$game("none")
                }
            }
        )*
    };
}

mod config;
mod corpus;
mod exits;
mod first;
mod game;
mod items;
mod mirror;
mod order;
mod outside;
mod planted;
mod reach;
mod shared;
mod toolchains;
