/**
 * The Field primitive (src/ui/field) wires every form control the same way: the label names the
 * control, `aria-describedby` names exactly the hint and the error on screen (after the caller's own
 * description), and `aria-invalid` marks a control with an error. Rendered to markup and read back.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Select } from '../../src/ui/select/select';
import { Slider } from '../../src/ui/slider/slider';
import { TextField } from '../../src/ui/text-field/text-field';
import { Textarea } from '../../src/ui/textarea/textarea';

/** The attributes of the first element matching `tag` (and `extra` in its opening tag). */
function attrs(html: string, tag: string, extra = ''): Record<string, string> {
  const m = new RegExp(`<${tag}\\b([^>]*${extra}[^>]*)>`).exec(html);
  if (!m) throw new Error(`no <${tag}> in ${html}`);
  return Object.fromEntries([...m[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
}
/** The ids of the elements `aria-describedby` names, with their text. */
function descriptions(html: string, describedBy: string | undefined): string[] {
  return (describedBy ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => {
      const m = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html);
      return m ? m[1]! : `(missing #${id})`;
    });
}

describe('Field wiring', () => {
  it('a text field: label for the input, hint and error describe it, aria-invalid with the error', () => {
    const html = renderToStaticMarkup(<TextField id="email" label="Email" hint="Work address" error="Email is required" />);
    expect(attrs(html, 'label')).toMatchObject({ for: 'email' });
    const input = attrs(html, 'input');
    expect(input).toMatchObject({ id: 'email', 'aria-invalid': 'true' });
    expect(descriptions(html, input['aria-describedby'])).toEqual(['Work address', 'Email is required']);
  });

  it('no error: no aria-invalid and only the hint; the caller’s own description comes first', () => {
    const html = renderToStaticMarkup(
      <>
        <p id="own">Own words</p>
        <Textarea id="bio" label="Bio" hint="Optional" aria-describedby="own" />
      </>,
    );
    const textarea = attrs(html, 'textarea');
    expect(textarea['aria-invalid']).toBeUndefined();
    expect(descriptions(html, textarea['aria-describedby'])).toEqual(['Own words', 'Optional']);
  });

  it('nothing to describe: no aria-describedby at all', () => {
    const html = renderToStaticMarkup(<TextField label="Name" />);
    const input = attrs(html, 'input');
    expect(input['aria-describedby']).toBeUndefined();
    expect(attrs(html, 'label').for).toBe(input.id);
  });

  it('a slider shows its value beside the label and is described by its error', () => {
    const html = renderToStaticMarkup(<Slider id="speed" label="Speed" value={0.5} error="Must be between 0 and 1" />);
    expect(attrs(html, 'label')).toMatchObject({ for: 'speed' });
    expect(attrs(html, 'output')).toMatchObject({ for: 'speed', 'aria-hidden': 'true' });
    const input = attrs(html, 'input', 'type="range"');
    expect(input).toMatchObject({ 'aria-invalid': 'true', 'aria-valuetext': '0.5' });
    expect(descriptions(html, input['aria-describedby'])).toEqual(['Must be between 0 and 1']);
  });

  it('a select is named by its label text (aria-labelledby) and described by hint and error', () => {
    const html = renderToStaticMarkup(
      <Select
        label="Voice"
        value=""
        onChange={() => {}}
        options={[{ value: 'a', label: 'A' }]}
        hint="Pick one"
        error="Voice is required"
      />,
    );
    const combobox = attrs(html, 'button', 'role="combobox"');
    expect(combobox['aria-invalid']).toBe('true');
    expect(descriptions(html, combobox['aria-labelledby'])).toEqual(['Voice']);
    expect(descriptions(html, combobox['aria-describedby'])).toEqual(['Pick one', 'Voice is required']);
  });
});
