/// HTTP's optional whitespace (SP and HTAB), trimmed without Foundation's character sets.
extension String {
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        // last! is safe: a non-space character exists, since `first` was found.
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}
