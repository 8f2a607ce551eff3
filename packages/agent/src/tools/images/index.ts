// generate_image (DESIGN §9.5): one picture drawn by the provider's image model, through the
// gateway that meters it, handed to the channel beside the answer. Offered only where the catalog
// gives the provider images; refused in words (a tool error the model passes on) once the turn's
// pictures are spent, before any call, or when the gateway says the allowance is spent.
import { IMAGE_SIZES, type ImageSize, type Painter } from '../../model/media-out.js';
import { ProviderError } from '../../model/provider.js';
import { ToolFailure, type Tool } from '../tool.js';

export const IMAGE_PROMPT_MAX_CHARS = 4000;

export function generateImageTool(painter: Painter, perTurn: number): Tool {
  return {
    name: 'generate_image',
    emoji: '🎨',
    description:
      'Draw a picture from a description and send it to the user with your answer. Use it only when the user asks for a picture, drawing, illustration or image.',
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'What to draw, in detail (subject, style, colours, composition)' },
        size: { type: 'string', enum: [...IMAGE_SIZES], description: 'Square (default), portrait or landscape' },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    label: () => 'Drawing a picture',
    async run(args, signal, ctx) {
      const prompt = typeof args.prompt === 'string' ? args.prompt.trim() : '';
      if (!prompt) throw new ToolFailure('Give "prompt": what to draw.');
      if (prompt.length > IMAGE_PROMPT_MAX_CHARS)
        throw new ToolFailure(`The prompt may be at most ${IMAGE_PROMPT_MAX_CHARS} characters; shorten it.`);
      const size = IMAGE_SIZES.includes(args.size as ImageSize) ? (args.size as ImageSize) : undefined;
      if (!ctx?.attach) throw new ToolFailure('Pictures cannot be sent here; describe it in words instead.');
      if ((ctx.attached?.('photo') ?? 0) >= perTurn)
        throw new ToolFailure(
          perTurn === 0
            ? 'The owner of this assistant has turned pictures off. Tell the user you cannot draw here.'
            : `At most ${perTurn} picture${perTurn === 1 ? '' : 's'} per answer (the owner's setting); no more was drawn. Tell the user to ask again in a new message.`,
        );
      let picture: Awaited<ReturnType<Painter['paint']>>;
      try {
        picture = await painter.paint(prompt, size, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof ProviderError && err.kind === 'credits')
          throw new ToolFailure(
            "This assistant's allowance for the period is spent, so no picture was drawn. Tell the user it will be possible again when the allowance renews.",
          );
        if (err instanceof ProviderError && err.kind === 'bad_request')
          throw new ToolFailure(`The image model refused this prompt: ${err.message}`);
        throw new ToolFailure(`No picture could be drawn now (${(err as Error).message}). Tell the user.`);
      }
      const ext = picture.mimeType === 'image/jpeg' ? 'jpg' : picture.mimeType.slice(6);
      ctx.attach({ kind: 'photo', name: `picture.${ext}`, mimeType: picture.mimeType, bytes: picture.bytes });
      return JSON.stringify({
        ok: true,
        note: 'The picture is sent to the user with your answer. Do not describe a link or repeat it; a short line about it is enough.',
      });
    },
  };
}
