//! The watcher's account against printed outcomes: lines sealed as the watcher seals them.
