/// Line splitting for wire text. `Character`-based splitting would keep "\r\n" whole (it is one grapheme
/// cluster), so this splits on the LF scalar and drops a CR before it.
extension String {
    /// Every line, including an empty last one after a final LF.
    var lines: [String] {
        unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { scalars in
            var line = String(String.UnicodeScalarView(scalars))
            if line.unicodeScalars.last == "\r" { line.unicodeScalars.removeLast() }
            return line
        }
    }
}
