/**
 * Reference tool (not used by the tests): regenerates tests/data/wordcount_golden.json from the real npm
 * packages the 2023 qualification used, so pcg_plugin/problems/science_birds/rules/checks.py can be checked digit for digit without node.
 *
 * - `count`       = words-count 2.0.2 `wordsCount(text)` (chatgpt4pcg `countWords`, spec §2.2 rule 1)
 * - `disallowed`  = chatgpt4pcg 1.4.1 `containDisallowedCharacters(text)` (rule 2)
 * - `placeholder` = chatgpt4pcg 1.4.1 `containObjectTokens(text)` (rule 3)
 *
 * Prompt files are read like Node's `fs.readFileSync(path, 'utf-8')`: a UTF-8 BOM is kept, CRLF is kept.
 *
 * Regenerate (outside the repo, node >= 18):
 *   D=$(mktemp -d) && (cd "$D" && npm install words-count@2.0.2 chatgpt4pcg@1.4.1)
 *   NODE_PATH="$D/node_modules" node scripts/data/wordcount_golden.mjs \
 *       ../shared/data/official-2023-results/prompts > tests/data/wordcount_golden.json
 */

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.env.NODE_PATH || process.cwd(), 'x.js'));
const { wordsCount } = require('words-count');
const { containDisallowedCharacters, containObjectTokens } = require('chatgpt4pcg');

// Tricky inputs: spec §2.2 worked examples first, then every quirk of the algorithm we reproduce.
const STRINGS = [
  "drop_block('b11', 3)",
  'a\nb\nc d',
  '100 200,300',
  "don't stop-now",
  '',
  '   ',
  '...!!!???',
  '- - -',
  '---',
  '  leading spaces',
  'trailing spaces   ',
  'a  b   c',
  '\tTab\tseparated\twords',
  'line one\nline two\nline three',
  'crlf\r\nline\r\nend',
  '\r\n',
  '\n\nstarting newlines then words',
  'end with newline\n',
  'tab\t\tdouble\n\nnewline',
  '- \n -',
  'b11',
  "drop_block('b31', 10)",
  'ab_drop("b13", 7)\nab_drop("b11", 8)',
  'snake_case_name',
  'mixedABC123def456',
  '1st 2nd 3rd',
  '1.5 2,000 3/4',
  'x=1, y=2',
  'x + y = z',
  '3x3 grid',
  'well-known co-operative',
  'rock\u2019n\u2019roll',
  '\u201Cquoted\u201D text \u2018single\u2019',
  'em\u2014dash\u2014joined',
  '\u2014',
  'a, b. c; d: e',
  '#hashtag @mention $100 50% ^caret& *star*',
  '`code` *bold* _under_ |pipe|',
  'a\\b back\\slash',
  '<OBJECT>',
  'Build the letter <OBJECT> now',
  'https://example.com/path?q=1&r=2',
  '\u6C49\u5B57\u6D4B\u8BD5',
  '\u3072\u3089\u304C\u306A \u30AB\u30BF\u30AB\u30CA',
  '\uD55C\uAD6D\uC5B4 \uD14D\uC2A4\uD2B8',
  '\u041F\u0440\u0438\u0432\u0435\u0442 \u043C\u0438\u0440',
  'caf\u00E9 na\u00EFve r\u00E9sum\u00E9',
  '\u00D7\u00F7',
  '\u0149 \u01C5 \u1E9E',
  '\u0D2E\u0D32\u0D2F\u0D3E\u0D33\u0D02',
  '\u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC word',
  '\u05E2\u05D1\u05E8\u05D9\u05EA',
  '\u0661\u0662\u0663',
  'emoji \uD83D\uDE00 here',
  '\uD83D\uDE00\uD83D\uDE00',
  'a\uD83D\uDE00b',
  '\uFF46\uFF55\uFF4C\uFF4C\uFF57\uFF49\uFF44\uFF54\uFF48 ok',
  '\uFF08\uFF09\u3002\u3001',
  'a\u00A0b',
  'a\u00A0b c',
  '\u3000\u5168\u89D2space',
  'a\u3000b c',
  'word\u2028next',
  'a\u200Bb',
  '\uFEFFBOM start',
  'x\u000By',
  'x\u000Cy z',
  '\u001C\u001D',
  'a\u0085b c',
  '\u180E',
  'a\u1680b c',
  '90\u00B0 rotation',
  'caf\u00E9 \u00E9',
  '   \u00A0',
  '\u00A0\u00E9\u00A0',
  'Tab\there\u00A0',
];

function row(text) {
  return {
    text,
    count: wordsCount(text),
    disallowed: containDisallowedCharacters(text),
    placeholder: containObjectTokens(text),
  };
}

const promptsDir = process.argv[2];
const prompts = {};
for (const name of fs.readdirSync(promptsDir).sort()) {
  const text = fs.readFileSync(path.join(promptsDir, name), 'utf-8');
  const { text: _t, ...rest } = row(text);
  prompts[name] = rest;
}

const out = {
  generator: 'scripts/data/wordcount_golden.mjs',
  packages: { 'words-count': '2.0.2', chatgpt4pcg: '1.4.1' },
  prompts,
  strings: STRINGS.map(row),
};
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
