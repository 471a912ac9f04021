import { parseHTML } from "linkedom";
const d = parseHTML("<p>x</p>").document;
export const n: number = d;
export const x: Document = 5;
export const y: HTMLElement = "s";
