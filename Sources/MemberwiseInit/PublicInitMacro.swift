import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@PublicInit`: a struct's public memberwise initialiser — a parameter per stored property, in declaration order,
/// with the property's name, type and declared default — which Swift generates only `internal`. The contract's events
/// are public values built in other modules: this writes each one's initialiser once, here, instead of once per event.
/// A default is only what the declaration says (`var locale: String? = nil`): no optional is left out implicitly. What
/// it cannot pass on as it is — a private property, a wrapped one, a pattern, a member under `#if` — is an error.
public struct PublicInitMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        do {
            return [try initialiser(of: declaration, at: node)]
        } catch let error as PublicInitError {
            context.diagnose(Diagnostic(node: error.node, message: error))
            return []
        }
    }

    private static func initialiser(of declaration: some DeclGroupSyntax, at node: AttributeSyntax) throws -> DeclSyntax {
        guard declaration.is(StructDeclSyntax.self) else { throw PublicInitError(node, "@PublicInit applies to a struct") }
        var parameters: [String] = []
        var assignments: [String] = []
        for member in declaration.memberBlock.members {
            if member.decl.is(IfConfigDeclSyntax.self) { throw PublicInitError(member, "@PublicInit cannot read members under #if") }
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.has(.static) else { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for (index, binding) in variable.bindings.enumerated() where binding.isStored {
                if isLet && binding.initializer != nil { continue }  // a constant with its value: nothing to pass
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmedDescription else {
                    throw PublicInitError(binding, "@PublicInit needs one name per stored property, not a pattern")
                }
                if let attribute = variable.attributes.first {
                    throw PublicInitError(variable, "@PublicInit cannot tell whether \(attribute.trimmedDescription) wraps '\(name)'")
                }
                if variable.has(.private) || variable.has(.fileprivate) {
                    throw PublicInitError(variable, "@PublicInit would make the private '\(name)' public")
                }
                // `var a, b: Int`: a name without a type or a value takes the next type written.
                let typed = binding.initializer == nil ? variable.bindings.dropFirst(index).lazy.compactMap(\.typeAnnotation).first
                    : binding.typeAnnotation
                guard let type = typed?.type.trimmedDescription else {
                    throw PublicInitError(binding, "@PublicInit needs the type of '\(name)' written out")
                }
                let defaultValue = binding.initializer.map { " = \($0.value.trimmedDescription)" } ?? ""
                parameters.append("\(name): \(type)\(defaultValue)")
                assignments.append("self.\(name) = \(name)")
            }
        }
        return """
            public init(\(raw: parameters.joined(separator: ", "))) {
            \(raw: assignments.joined(separator: "\n"))
            }
            """
    }
}

private extension VariableDeclSyntax {
    /// Whether a modifier `keyword` is written (`private(set)` is not `private`: its detail says so).
    func has(_ keyword: Keyword) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(keyword) && $0.detail == nil }
    }
}

private extension PatternBindingSyntax {
    /// Stored: no accessors but observers (`willSet`, `didSet`).
    var isStored: Bool {
        guard let accessors = accessorBlock?.accessors else { return true }
        guard case .accessors(let list) = accessors else { return false }
        return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
    }
}

/// An error at `node`, said by the compiler where the macro is used.
struct PublicInitError: Error, DiagnosticMessage {
    let node: Syntax
    let message: String

    init(_ node: some SyntaxProtocol, _ message: String) {
        self.node = Syntax(node)
        self.message = message
    }

    var diagnosticID: MessageID { MessageID(domain: "MemberwiseInit", id: "PublicInit") }
    var severity: DiagnosticSeverity { .error }
}
