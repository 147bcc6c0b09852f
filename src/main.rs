//! The `tetris-lab` binary: everything lives in the library; this maps errors to exit codes.

fn main() {
    std::process::exit(tetris_lab::cli::main());
}
