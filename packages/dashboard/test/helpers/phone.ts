// Whether the page fits a screen `width` px wide without sideways scrolling (DESIGN §7.6), naming the
// last few elements that stick out when it does not.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

export async function assertFits(page: Page, width: number, what: string): Promise<void> {
  const { wide, over } = await page.evaluate((w) => {
    const doc = (globalThis as any).document;
    const over = [...doc.querySelectorAll('main *')]
      .filter((el: any) => el.getBoundingClientRect().right > w + 0.5)
      .map(
        (el: any) =>
          `${el.tagName}.${el.className}[${Math.round(el.getBoundingClientRect().right)}:${(el.textContent ?? '').slice(0, 30)}]`,
      )
      .slice(0, 8);
    return { wide: doc.documentElement.scrollWidth as number, over };
  }, width);
  assert.ok(wide <= width, `${what} is ${wide} px wide on a ${width} px screen: ${over.join(', ')}`);
}
