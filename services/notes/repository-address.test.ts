// Unit: repository addresses in the spellings people paste reduce to one key; things that name no remote repository
// reduce to none.
import { describe, expect, test } from "bun:test";
import { repositoryKey } from "./repository-address.ts";

describe("repositoryKey", () => {
  test("the four spellings of one GitHub repository are the same key", () => {
    for (const address of ["https://github.com/a/b", "https://github.com/a/b.git", "git@github.com:a/b.git", "github.com/a/b"]) {
      expect({ address, key: repositoryKey(address) }).toEqual({ address, key: "github.com/a/b" });
    }
  });

  test("more spellings of the same repository", () => {
    const same = [
      "http://github.com/a/b",
      "https://github.com/a/b/",
      "https://github.com/a/b.git/",
      "HTTPS://GitHub.com/A/B.GIT",
      "  https://github.com/a/b  ",
      "https://www.github.com/a/b",
      "https://user:token@github.com/a/b.git",
      "https://github.com:443/a/b",
      "https://github.com/a/b?tab=readme#top",
      "ssh://git@github.com/a/b.git",
      "ssh://git@github.com:22/a/b.git",
      "git+ssh://git@github.com/a/b.git",
      "git://github.com/a/b.git",
      "git@github.com:/a/b.git",
      "github.com:a/b",
      "github.com/a/b.git",
      "git@github.com:a/b",
      // Pages inside the repository, pasted from a browser.
      "https://github.com/a/b/tree/main/src/api",
      "https://github.com/a/b/pull/3",
      "https://github.com/a/b/blob/main/README.md",
    ];
    for (const address of same) expect({ address, key: repositoryKey(address) }).toEqual({ address, key: "github.com/a/b" });
  });

  test("hosts with nested groups keep the whole path; GitLab's /-/ pages cut off", () => {
    expect(repositoryKey("https://gitlab.com/group/sub/project.git")).toBe("gitlab.com/group/sub/project");
    expect(repositoryKey("git@gitlab.com:group/sub/project.git")).toBe("gitlab.com/group/sub/project");
    expect(repositoryKey("https://gitlab.com/group/sub/project/-/tree/main")).toBe("gitlab.com/group/sub/project");
    expect(repositoryKey("https://git.example.test/team/tool")).toBe("git.example.test/team/tool");
    expect(repositoryKey("ssh://git@git.example.test:2222/team/tool.git")).toBe("git.example.test/team/tool");
    expect(repositoryKey("localhost/team/tool")).toBe("localhost/team/tool");
  });

  test("addresses that name no remote repository", () => {
    const bad = [
      "",
      "   ",
      "github.com",
      "github.com/a",
      "https://github.com/a",
      "https://github.com/",
      "a/b",
      "owner/name/extra",
      "not a repository",
      "github.com/a b/c",
      "C:\\src\\repo",
      "file:///home/me/repo",
      "ftp://github.com/a/b",
      "https://github.com/a/../b",
      "https://github.com/a/.git",
      "https:///a/b",
      "git@:a/b",
    ];
    for (const address of bad) expect({ address, key: repositoryKey(address) }).toEqual({ address, key: null });
  });
});
