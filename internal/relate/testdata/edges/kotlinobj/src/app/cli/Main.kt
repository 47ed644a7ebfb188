package app.cli

import app.parsers.CommandLineParser

fun run(argv: String): Set<String> {
    val words = CommandLineParser.tokenize(argv.substring(1))
    return words.filterNot { it.isBlank() }.toSet()
}
