/**
 * What an MCP tool returns, as the Messages API takes it. A server answers with content blocks
 * (text, image, audio, a resource or a link to one) and maybe `structuredContent`; a tool_result
 * holds text and image blocks. So: text stays text; an image in a format the API reads (PNG, JPEG,
 * GIF, WebP) becomes an image block; a resource's text becomes text headed by its URI, its image
 * an image block, any other blob a line naming it; audio and links are a line each. `isError`
 * becomes `is_error`. The text is bounded like every tool's output (head and tail kept), and the
 * images too (`MAX_IMAGE_BYTES` of base64 in all). Left out: `structuredContent` beside content
 * (the API has no place for it; it is the text when content is empty), audio for the model.
 */
import type { ImageBlockParam, TextBlockParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import {
  BoundedOutput,
  DEFAULT_MAX_OUTPUT_BYTES,
  type ToolCall,
  type ToolResult,
  toResultBlock as textResultBlock,
  toolError,
} from "@harness/shared";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Base64 bytes of images one result may carry (the API takes up to 5 MB an image). */
export const MAX_IMAGE_BYTES = 5_000_000;

/** The media types the Messages API reads in an image block. */
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

/** A tool's result with the images it carries: sent after its text (which a hook may have added to). */
export interface RichToolResult extends ToolResult {
  images?: ImageBlockParam[];
}

/**
 * An MCP tool's answer as a tool result: text for every block, image blocks where there are images.
 * Contract: never throws; whatever the server sent, the text is at most `maxBytes` (and a marker).
 */
export function fromMcpResult(result: CallToolResult, maxBytes = DEFAULT_MAX_OUTPUT_BYTES): RichToolResult {
  const text = new BoundedOutput(maxBytes);
  const images: ImageBlockParam[] = [];
  let imageBytes = 0;
  const say = (line: string) => {
    text.write(Buffer.from(text.totalBytes > 0 ? `\n${line}` : line));
  };
  const image = (data: string, mimeType: string, what: string) => {
    if (!IMAGE_TYPES.includes(mimeType as ImageType))
      return say(`[${what}: ${mimeType}, ${data.length} bytes of base64, not shown]`);
    if (imageBytes + data.length > MAX_IMAGE_BYTES)
      return say(`[${what}: ${mimeType}, cut: over ${MAX_IMAGE_BYTES} bytes of images]`);
    imageBytes += data.length;
    say(`[${what}: ${mimeType}, ${data.length} bytes of base64]`);
    images.push({ type: "image", source: { type: "base64", media_type: mimeType as ImageType, data } });
  };
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        say(block.text);
        break;
      case "image":
        image(block.data, block.mimeType, "image");
        break;
      case "audio":
        say(`[audio: ${block.mimeType}, ${block.data.length} bytes of base64, not shown]`);
        break;
      case "resource_link":
        say(`[resource link: ${block.uri}${block.description ? ` (${block.description})` : ""}]`);
        break;
      case "resource": {
        const { resource } = block;
        if ("text" in resource) say(`[resource ${resource.uri}]\n${resource.text}`);
        else image(resource.blob, resource.mimeType ?? "application/octet-stream", `resource ${resource.uri}`);
        break;
      }
    }
  }
  if (text.totalBytes === 0 && result.structuredContent !== undefined) say(JSON.stringify(result.structuredContent));
  const content = text.text();
  const isError = result.isError === true;
  return images.length === 0 ? { content, isError } : { content, isError, images };
}

/**
 * A tool result as the API wants it: s02's text block, or, when the result has images, its text
 * then its images (the model reads what each image is before it sees it).
 * Contract: the same as s02's `toResultBlock` for every result without images.
 */
export function toResultBlock(call: ToolCall, result: ToolResult): ToolResultBlockParam {
  const { images } = result as RichToolResult;
  if (!images?.length) return textResultBlock(call, result);
  const text: TextBlockParam = { type: "text", text: result.content };
  return { type: "tool_result", tool_use_id: call.id, content: [text, ...images], is_error: result.isError };
}

/** An MCP failure as a coded result: `Error [mcp_timeout]: ...`. */
export function mcpError(
  code: "mcp_timeout" | "mcp_crashed" | "mcp_server_down" | "mcp_error",
  message: string,
): ToolResult {
  return toolError(`Error [${code}]: ${message}`);
}
