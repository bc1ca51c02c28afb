import Testing

@testable import PushtopConformance

/// The catalogue is data: its ids, levels, sources and needs hold the rules the reports and the diff rely on.
@Suite struct CatalogueTests {
    let cases = ConformanceSuite.cases

    @Test func wellOverAHundredCasesWithUniqueIDs() {
        #expect(cases.count > 150)
        #expect(Set(cases.map(\.id)).count == cases.count)
    }

    @Test func idsAreGroupDotName() {
        for c in cases {
            let parts = c.id.split(separator: ".")
            #expect(parts.count == 2, "\(c.id)")
            #expect(c.id.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." }, "\(c.id)")
            #expect(c.group == String(parts[0]))
        }
    }

    @Test func everyLevelIsRepresentedAndEveryCaseNamesItsSource() {
        for level in ConformanceLevel.allCases { #expect(cases.contains { $0.level == level }) }
        for c in cases {
            #expect(c.source.url.hasPrefix("https://"), "\(c.id)")
            #expect(!c.source.page.isEmpty && !c.source.section.isEmpty, "\(c.id)")
            #expect(c.title.hasSuffix("."), "\(c.id): a sentence")
        }
    }

    @Test func optionalFeaturesAndNeedsAgree() {
        for c in cases where c.needs.contains(.webhooks) { #expect(c.feature == .webhooks, "\(c.id)") }
        for c in cases where c.group == "cluster" { #expect(c.needs.contains(.cluster), "\(c.id)") }
        for c in cases where c.feature != nil && c.group != "cluster" {
            #expect(c.level == .optional, "\(c.id): a feature a server may lack is OPTIONAL")
        }
    }

    @Test func theDocsPageListsEveryCase() {
        let page = CatalogueMarkdown.render()
        for c in cases { #expect(page.contains("`\(c.id)`")) }
        #expect(page.hasPrefix("<!-- Generated"))
    }

    @Test func aRunnerSkipsWithReasonsAndSelectsByGroupOrID() {
        let target = ConformanceTarget(
            nodes: [
                .single(
                    host: "127.0.0.1", port: 1, useTLS: false, appID: "1", key: "k",
                    secret: "s")
            ], appID: "1", key: "k", secret: "s")
        let runner = ConformanceRunner(target: target, only: ["presence", "api.unsigned-401"])
        let plan = runner.plan()
        #expect(plan.allSatisfy { $0.0.group == "presence" || $0.0.id == "api.unsigned-401" })
        #expect(plan.contains { $0.0.id == "api.unsigned-401" })
        let limit = plan.first { $0.0.id == "presence.member-limit-100" }
        #expect(limit?.skip?.contains("--destructive") == true)
        let all = ConformanceRunner(target: target).plan()
        #expect(all.filter { $0.0.group == "webhooks" }.allSatisfy { $0.skip?.contains("--webhook-listen") == true })
        #expect(all.filter { $0.0.group == "cluster" }.allSatisfy { $0.skip != nil })
        #expect(all.first { $0.0.id == "cluster.publish-anywhere" }?.skip?.contains("--node") == true)
        #expect(runner.runPrefix.hasPrefix("conform-"))
    }
}
