/// A corpus of broken theme files (written to a temporary folder by the tests, then loaded like a user's).
let brokenThemeCorpus: [(file: String, text: String)] = [
    ("bad-indexed.toml", "name = \"x\"\n[roles]\nborder = \"999/red\"\n"),
    ("colour-out-of-range.toml", "name = \"x\"\n[roles]\nborder = \"300\"\n"),
    ("dangling-on.toml", "name = \"x\"\n[roles]\nborder = \"red on\"\n"),
    ("empty.toml", ""),
    ("missing-name.toml", "[roles]\nborder = \"red\"\n"),
    ("name-not-string.toml", "name = 5\n[roles]\nborder = \"red\"\n"),
    ("no-roles.toml", "name = \"x\"\n"),
    ("role-not-string.toml", "name = \"x\"\n[roles]\nborder = 3\n"),
    ("roles-not-table.toml", "name = \"x\"\nroles = \"red\"\n"),
    ("syntax-error.toml", "name = \"x\"\n[roles\nborder = \"red\"\n"),
    ("two-foregrounds.toml", "name = \"x\"\n[roles]\nborder = \"red blue\"\n"),
    ("unknown-colour.toml", "name = \"x\"\n[roles]\nborder = \"gren bold\"\n"),
    ("unknown-key.toml", "name = \"x\"\ncolour = true\n[roles]\nborder = \"red\"\n"),
    ("unknown-role.toml", "name = \"x\"\n[roles]\n\"state.conected\" = \"green\"\n"),
]
