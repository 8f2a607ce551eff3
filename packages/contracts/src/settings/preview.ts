// Kept apart from the schema: the agent's chat route reads the name without loading TypeBox.
/**
 * The chat body's field for the dashboard's "preview before saving": a whole AssistantSettings
 * document used for that one turn only. The control plane accepts it only from a signed-in session
 * that may manage the assistant and checks it with the AssistantSettings schema; the agent never passes it to the
 * model provider (decision 0021, "Preview").
 */
export const SETTINGS_PREVIEW_FIELD = 'berth_settings_preview';
