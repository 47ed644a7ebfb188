func banner(_ font: Font) -> String {
    return """
    Font: \(describe(font, "(size)"))
    """
}

func describe(_ font: Font, _ label: String) -> String {
    return label + ": \(font.size)"
}
