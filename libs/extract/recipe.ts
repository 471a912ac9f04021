// Recipes as the page states them (schema.org Recipe in JSON-LD): ingredients and steps. Recipe pages set the
// ingredient list apart from the method (a table beside the text, a box above it), and Readability keeps one of
// the two. Part of the readable stage: what the extracted Markdown lacks of the stated recipe is added after it,
// as lists, in the page's own words.
import { findLdNode } from "./jsonld.ts";
import { escapeMarkdown } from "./markdown.ts";

export interface Recipe {
  ingredients: string[];
  steps: string[];
}

// Bounds on what a page may add: a recipe, not a dump.
const MAX_LINES = 200;
const MAX_LINE = 1000;

/** The first schema.org Recipe among the page's parsed JSON-LD blocks, or null when it states none. */
export function recipeOf(blocks: unknown[]): Recipe | null {
  const node = findLdNode(blocks, (t) => t === "Recipe");
  if (!node) return null;
  const ingredients = strings(node.recipeIngredient ?? node.ingredients).slice(0, MAX_LINES);
  const steps = stepsOf(node.recipeInstructions, 0).slice(0, MAX_LINES);
  return ingredients.length || steps.length ? { ingredients, steps } : null;
}

/**
 * `markdown` with what it lacks of `recipe` added: the ingredient list when fewer than half its lines are in the
 * text, the steps likewise.
 */
export function completeRecipe(markdown: string, recipe: Recipe | null): string {
  if (!recipe) return markdown;
  const text = fold(markdown);
  const missing = (lines: string[]) => lines.length > 0 && lines.filter((l) => text.includes(fold(l).slice(0, 40))).length * 2 < lines.length;
  const parts = [markdown.trimEnd()];
  if (missing(recipe.ingredients)) parts.push(recipe.ingredients.map((l) => `- ${escapeMarkdown(l)}`).join("\n"));
  if (missing(recipe.steps)) parts.push(recipe.steps.map((l, i) => `${i + 1}. ${escapeMarkdown(l)}`).join("\n"));
  return parts.length === 1 ? markdown : `${parts.filter(Boolean).join("\n\n")}\n`;
}

function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return list.filter((v): v is string => typeof v === "string").map(clean).filter(Boolean);
}

// Instructions come as one text, a list of texts, HowToSteps ({text}) or HowToSections ({itemListElement}).
function stepsOf(value: unknown, depth: number): string[] {
  if (depth > 3 || value == null) return [];
  if (typeof value === "string") return value.split(/\n+/).map(clean).filter(Boolean);
  if (Array.isArray(value)) return value.flatMap((v) => stepsOf(v, depth + 1));
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    if (obj.itemListElement) return stepsOf(obj.itemListElement, depth + 1);
    if (typeof obj.text === "string") return [clean(obj.text)].filter(Boolean);
    if (typeof obj.name === "string") return [clean(obj.name)].filter(Boolean);
  }
  return [];
}

// Entities and tags some sites leave in their JSON-LD strings.
function clean(s: string): string {
  return s
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_LINE);
}

function fold(s: string): string {
  return s.replace(/\\([\\`*_{}[\]()#+\-.!<>~|])/g, "$1").replace(/\s+/g, " ").toLowerCase();
}
