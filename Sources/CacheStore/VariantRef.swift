/// Names one stored variant.
struct VariantRef: Sendable, Hashable {
    var key: String
    var variant: String
}
