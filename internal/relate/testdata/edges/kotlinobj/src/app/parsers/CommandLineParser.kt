package app.parsers

object CommandLineParser {
    fun tokenize(line: String): List<String> = line.split(" ")
}
