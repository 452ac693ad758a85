// The dashboard walk in a real browser: Debian's Chromium, headless, driven by playwright-core.
//
// sign up → open the verification link from the outbox → sign in → create a management key in Settings (with the
// keyboard) → use it on /api/v1/keys (Node fetch) to create a regular key → chat in the playground with that key and
// signed in (user-billed mode), stop a slow answer → see the requests in the activity table and the chart with their
// cost → API keys, balance; on the way a wrong password and an invalid limit are refused on their pages, and the
// playground (signed out), the empty management-key list and an API key's edit page are shown. Every page:
// screenshot, no horizontal overflow at 390 px, no console or page errors.
//
// Environment: BASE_URL (the running gateway, started with TOLLGATE_PLAYGROUND_USER_BILLED=true and this
// directory's catalog.yml), TOLLGATE_JAR (for the operator's credit), OUTPUT_DIR (screenshots), CHROMIUM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const BASE_URL = process.env.BASE_URL ?? "http://127.0.0.1:18090";
const JAR = process.env.TOLLGATE_JAR;
const OUTPUT_DIR = process.env.OUTPUT_DIR ?? join(process.cwd(), "output");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const WIDTH = 390;

const email = `walk-${Date.now()}@example.test`;
const password = "a long browser walk passphrase";
const consoleErrors = [];
let shot = 0;

async function checkPage(page, name) {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrollWidth <= WIDTH, `${name}: no horizontal overflow at ${WIDTH} px (scrollWidth ${scrollWidth})`);
  shot += 1;
  await page.screenshot({ path: join(OUTPUT_DIR, `${String(shot).padStart(2, "0")}-${name}.png`), fullPage: true });
}

/** Presses Tab until the focused element matches the selector (as a keyboard user would); returns the presses. */
async function tabTo(page, selector, most = 80) {
  for (let presses = 1; presses <= most; presses++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) {
      return presses;
    }
  }
  assert.fail(`Tab never reached ${selector}`);
}

async function visit(page, path) {
  const response = await page.goto(BASE_URL + path);
  assert.equal(response.status(), 200, `${path} answers 200`);
  return response;
}

/** Dollars of a "$1.234567" text as integer micro-dollars. */
function micros(text) {
  const match = /\$([0-9]+)\.([0-9]+)/.exec(text);
  assert.ok(match, `a dollar amount in "${text}"`);
  return BigInt(match[1]) * 1000000n + BigInt(match[2].padEnd(6, "0").slice(0, 6));
}

function csvRows(text) {
  // RFC 4180: quoted fields may hold commas and doubled quotes (enough for this walk's values).
  return text.trim().split("\r\n").map((line) => {
    const fields = [];
    let field = "";
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { field += '"'; i++; } else if (c === '"') { quoted = false; } else { field += c; }
      } else if (c === '"') { quoted = true; } else if (c === ",") { fields.push(field); field = ""; } else { field += c; }
    }
    fields.push(field);
    return fields;
  });
}

test("the dashboard, walked in Chromium at 390 px with the keyboard", async (t) => {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const profile = join(tmpdir(), `tollgate-chromium-${process.pid}`);
  // A fresh profile directory (playwright passes it to Chromium as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
    viewport: { width: WIDTH, height: 844 },
    deviceScaleFactor: 1,
  });
  const page = context.pages()[0] ?? await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") {
      consoleErrors.push(`${page.url()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => consoleErrors.push(`${page.url()}: page error ${error.message}`));

  let gpm;
  let gp;
  const requestIds = [];
  try {
    await t.test("the playground for a visitor who is not signed in", async () => {
      await visit(page, "/playground");
      await page.locator("#pg-model").waitFor();
      await checkPage(page, "playground-visitor");
    });

    await t.test("sign up", async () => {
      await visit(page, "/signup");
      await checkPage(page, "signup");
      await page.fill("#email", email);
      await page.fill("#password", password);
      await page.fill("#password_repeat", password);
      await page.click("button[type=submit]");
      await page.getByText("Check your inbox").waitFor();
      await checkPage(page, "signup-sent");
    });

    await t.test("open the verification link from the outbox", async () => {
      await visit(page, "/outbox");
      await checkPage(page, "outbox");
      const mail = page.locator("li", { hasText: `To ${email}` }).first();
      const link = await mail.locator("a.mail-link").getAttribute("href");
      assert.match(link, /^\/verify\?token=/);
      await visit(page, link);
      await checkPage(page, "verify");
      await page.fill("#password", password);
      await page.getByRole("button", { name: "Confirm my e-mail address" }).click();
      await page.getByText("Your e-mail address is confirmed").waitFor();
    });

    await t.test("a wrong password is refused on the page, without a console error", async () => {
      await visit(page, "/login");
      await checkPage(page, "login");
      await tabTo(page, "#email");
      await page.keyboard.type(email);
      await tabTo(page, "#password");
      await page.keyboard.type("not the passphrase");
      await page.keyboard.press("Enter");
      await page.getByText("The e-mail address or password is not correct.").waitFor();
      await checkPage(page, "login-refused");
    });

    await t.test("sign in", async () => {
      await visit(page, "/login");
      await page.fill("#email", email);
      await page.fill("#password", password);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await checkPage(page, "overview");
      // The operator credits the account (the CLI, as in the README), so that requests can be billed.
      execFileSync("java", ["-jar", JAR, "admin", "account", "credit", "--email", email, "--usd", "5"],
        { stdio: ["ignore", "pipe", "inherit"], env: process.env });
    });

    await t.test("create a management key in Settings with the keyboard", async () => {
      await visit(page, "/settings/management-keys");
      await checkPage(page, "management-keys-empty");
      await tabTo(page, "#key-name");
      await page.keyboard.type("browser walk");
      await tabTo(page, "form[action='/settings/management-keys'] button[type=submit]");
      await page.keyboard.press("Enter");
      const secret = page.locator("#new-secret");
      await secret.waitFor();
      gpm = (await secret.textContent()).trim();
      assert.match(gpm, /^gpm-[0-9A-Za-z]{38}$/);
      await tabTo(page, "button.copy");
      await page.keyboard.press("Enter");
      await page.locator("#copy-status", { hasText: /Copied to the clipboard|The key is selected/ }).waitFor();
      await checkPage(page, "management-key-created");
    });

    await t.test("create a regular key with the management key on /api/v1/keys", async () => {
      const created = await fetch(`${BASE_URL}/api/v1/keys`, {
        method: "POST",
        headers: { Authorization: `Bearer ${gpm}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "walk key", limit: 2, limit_reset: "monthly" }),
      });
      assert.equal(created.status, 201);
      const body = await created.json();
      gp = body.key;
      assert.match(gp, /^gp-/);
      assert.equal(body.data.name, "walk key");
    });

    await t.test("an API key with a limit that is not an amount is refused on the page", async () => {
      await visit(page, "/keys");
      await tabTo(page, "#key-name");
      await page.keyboard.type("refused key");
      await tabTo(page, "#key-limit");
      await page.keyboard.type("-3");
      await tabTo(page, "form.key-form button[type=submit]");
      await page.keyboard.press("Enter");
      await page.locator(".error, [role=alert]").first().waitFor();
      assert.equal(await page.locator("#new-secret").count(), 0, "no key was issued");
      await checkPage(page, "api-key-refused");
    });

    await t.test("create an API key on the API keys page with the keyboard", async () => {
      await visit(page, "/keys");
      await page.getByText("walk key").first().waitFor();
      await tabTo(page, "#key-name");
      await page.keyboard.type("keyboard key");
      await tabTo(page, "#key-limit");
      await page.keyboard.type("1.5");
      await tabTo(page, "form.key-form button[type=submit]");
      await page.keyboard.press("Enter");
      const secret = page.locator("#new-secret");
      await secret.waitFor();
      assert.match((await secret.textContent()).trim(), /^gp-[0-9A-Za-z]{38}$/);
      await checkPage(page, "api-keys");
      const edit = await page.locator("a", { hasText: "Edit" }).first().getAttribute("href");
      assert.match(edit, /^\/keys\/[0-9a-f]{64}$/);
      await visit(page, edit);
      await page.locator("#key-limit").waitFor();
      await checkPage(page, "api-key-edit");
    });

    await t.test("chat in the playground with the regular key, token by token", async () => {
      await visit(page, "/playground");
      await page.locator("#pg-mode").waitFor();
      await page.selectOption("#pg-model", "tollgate/simulator-priced");
      await page.fill("#pg-key", gp);
      await page.fill("#pg-system", "Answer briefly.");
      await page.fill("#pg-message", "What does a gateway do?");
      await page.evaluate(() => {
        window.answerUpdates = 0;
        new MutationObserver(() => { window.answerUpdates += 1; })
          .observe(document.getElementById("pg-answer"), { childList: true, characterData: true, subtree: true });
      });
      const sent = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/chat/completions"));
      await page.locator("#pg-message").press("Control+Enter");
      const body = JSON.parse((await sent).postData());
      assert.deepEqual(body.messages.slice(0, 2), [{ role: "system", content: "Answer briefly." },
        { role: "user", content: "What does a gateway do?" }], "the system prompt goes first");
      assert.equal(body.model, "tollgate/simulator-priced");
      assert.equal(body.stream, true);
      await page.locator("#pg-status", { hasText: "Done." }).waitFor({ timeout: 20000 });
      const updates = await page.evaluate(() => window.answerUpdates);
      assert.ok(updates > 3, `the answer arrived in pieces (${updates} updates)`);
      assert.ok((await page.locator("#pg-answer").textContent()).trim().length > 0);
      const status = await page.locator("#pg-status").textContent();
      requestIds.push(/Request (req_[0-9a-f]+)/.exec(status)[1]);
      await checkPage(page, "playground");
    });

    await t.test("chat signed in, billed to the account, and stop a slow answer", async () => {
      await page.fill("#pg-key", "");
      await page.selectOption("#pg-model", "tollgate/simulator-priced");
      await page.fill("#pg-message", "And billed to my account?");
      await page.click("#pg-send");
      await page.locator("#pg-status", { hasText: "Done." }).waitFor({ timeout: 20000 });
      requestIds.push(/Request (req_[0-9a-f]+)/.exec(await page.locator("#pg-status").textContent())[1]);

      await page.selectOption("#pg-model", "tollgate/simulator-slow");
      await page.fill("#pg-message", "Tell me a long story.");
      await page.click("#pg-send");
      await page.waitForFunction(() => document.getElementById("pg-answer").textContent.length > 10);
      await page.keyboard.press("Enter"); // focus moved to Stop when the request started
      await page.locator("#pg-status", { hasText: "Stopped." }).waitFor();
      assert.equal(await page.locator("#pg-send").isDisabled(), false, "ready for the next message");
      await checkPage(page, "playground-stopped");
    });

    await t.test("see the requests in the activity and the chart with their cost", async () => {
      let row;
      for (let attempt = 0; attempt < 50; attempt++) {
        await visit(page, "/usage");
        row = page.locator("#activity-table tr", { hasText: requestIds[0] });
        if (await row.count() > 0 && await page.locator("#activity-table tr", { hasText: requestIds[1] }).count() > 0) {
          break;
        }
        await page.waitForTimeout(200);
      }
      assert.equal(await row.count(), 1, "the key's request is in the activity");
      assert.match(await row.textContent(), /walk key/);
      assert.match(await row.textContent(), /tollgate\/simulator-priced/);
      const rowCost = micros(await row.locator("td.cost").textContent());
      assert.ok(rowCost > 0n, "a priced request costs something");
      const accountRow = page.locator("#activity-table tr", { hasText: requestIds[1] });
      assert.match(await accountRow.textContent(), /Dashboard playground/);

      const csv = await page.request.get(`${BASE_URL}/usage/activity.csv`);
      assert.equal(csv.status(), 200);
      assert.match(csv.headers()["content-disposition"], /attachment; filename="tollgate-activity-\d{4}-\d{2}-\d{2}\.csv"/);
      const rows = csvRows(await csv.text());
      const header = rows[0];
      const costAt = header.indexOf("cost_usd");
      const idAt = header.indexOf("request_id");
      const exported = rows.find((r) => r[idAt] === requestIds[0]);
      assert.equal(micros("$" + exported[costAt]), rowCost, "the CSV has the table's cost");
      // The day (UTC) of the walk's request, not the clock's now: a walk that crosses midnight asked yesterday.
      const today = exported[0].slice(0, 10);
      assert.match(today, /^\d{4}-\d{2}-\d{2}$/, "the CSV starts each row with its time");
      const todays = rows.slice(1).filter((r) => r[0].startsWith(today))
        .reduce((sum, r) => sum + micros("$" + r[costAt]), 0n);

      const bar = page.locator(`#spend-chart rect[data-day="${today}"]`);
      assert.equal(await bar.count(), 1, "the request's day has a bar");
      assert.equal(micros(await bar.getAttribute("data-value")), todays, "the bar is that day's spend");
      assert.ok(Number(await bar.getAttribute("height")) > 0);
      assert.match(await bar.locator("title").textContent(), new RegExp(`^${today}: \\$`));
      await checkPage(page, "usage");

      const walkKey = await page.locator("#filter-key option", { hasText: "walk key" }).getAttribute("value");
      await page.selectOption("#filter-key", walkKey);
      await page.getByRole("button", { name: "Show" }).click();
      await page.waitForURL(/key=/);
      assert.equal(await page.locator("#activity-table tr", { hasText: requestIds[0] }).count(), 1);
      assert.equal(await page.locator("#activity-table tr", { hasText: requestIds[1] }).count(), 0,
        "filtered to the walk key");
      await checkPage(page, "usage-filtered");
    });

    await t.test("the balance shows the operator's credit and the spend", async () => {
      await visit(page, "/balance");
      const ledger = await page.locator("#ledger-table").textContent();
      assert.match(ledger, /\+\$5\.00/);
      assert.match(ledger, /Spend: \d+ requests?/);
      assert.ok(micros(await page.locator("#balance").textContent()) < 5000000n, "spent some of it");
      await checkPage(page, "balance");
    });

    await t.test("no console errors on the way", () => {
      assert.deepEqual(consoleErrors, []);
    });
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
