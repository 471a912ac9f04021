// What the JSON and CSV writers share: text made record by record, handed to the reader through a ByteChannel,
// each page waiting for the reader to take it.
import type { ExportRecord } from "@trove/contracts";
import { ByteChannel } from "./byte-channel.ts";
import type { ExportFormat, ExportWriter } from "./writer.ts";

export abstract class TextWriter implements ExportWriter {
  abstract readonly format: ExportFormat;
  abstract readonly contentType: string;
  abstract readonly extension: string;
  itemCount = 0;
  private readonly channel = new ByteChannel();
  readonly output: AsyncIterable<Uint8Array> = this.channel;

  /** The file's start; called once, by the subclass's constructor. */
  protected begin(text: string) {
    this.channel.write(text);
  }

  /** The text of one record; `index` counts from 0 over the whole file. */
  protected abstract recordText(r: ExportRecord, index: number): string;

  /** The text that closes the file, after the last record. */
  protected abstract endText(): string;

  async write(records: readonly ExportRecord[]) {
    records.forEach((r, i) => this.channel.write(this.recordText(r, this.itemCount + i)));
    await this.channel.drained();
    this.itemCount += records.length;
  }

  async finish() {
    this.channel.write(this.endText());
    this.channel.close();
    await this.channel.drained();
  }

  abort(err: unknown) {
    this.channel.fail(err);
  }
}
