//! The transition function driven as a caller drives it: whole action lists for each input
//! (`inputs`), the rules as properties over generated sessions (`properties`) and exhaustively
//! over short ones (`exhaustive`), a refused input's JSON (`rejection`), a broken call repaired
//! (`repair`), a stopped session resumed (`resume`), inputs and sessions as JSON (`shapes`), and Anthropic's signed thinking sent back
//! unchanged (`signed_thinking`).

mod exhaustive;
mod inputs;
mod properties;
mod rejection;
mod repair;
mod resume;
mod shapes;
mod signed_thinking;
