// The `pushtop` executable: everything is in PushtopCLI (commands, config, wiring), so that tests, benchmarks and
// fuzzers can import it.
import PushtopCLI

await Pushtop.launch()
