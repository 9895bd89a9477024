-- ragmeter's pandoc filter (testset/converters.py): the text a reader of the document needs, written
-- as Markdown the rest of ragmeter reads. A pipe table holds one line a cell and no merged cells,
-- so a table that has them is made a grid first (pandoc writes "[TABLE]" for it, its text lost).

local function one_line(blocks)
  if #blocks == 1 and (blocks[1].t == "Plain" or blocks[1].t == "Para") then
    -- a line break in a cell (<br>) is a space: a pipe table's cell is one line
    return {pandoc.Plain(blocks[1].content:walk({LineBreak = function() return pandoc.Space() end}))}
  end
  if #blocks == 0 then return {} end
  local text = pandoc.write(pandoc.Pandoc(blocks), "plain", {wrap_text = "wrap-none"})
  return {pandoc.Plain(pandoc.Inlines((text:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""))))}
end

-- a section's rows as a grid of ncols cells: a cell merged down is repeated in each row it spans
-- (each row keeps its key), a cell merged across leaves the columns it covers empty
local function grid(rows, ncols)
  local down = {}
  for _, row in ipairs(rows) do
    local cells, col, next_cell = {}, 1, 1
    while col <= ncols do
      local held = down[col]
      if held and held.left > 0 then
        cells[col] = pandoc.Cell(held.contents)
        held.left = held.left - 1
        col = col + 1
      else
        local cell = row.cells[next_cell]
        next_cell = next_cell + 1
        local contents = cell and one_line(cell.contents) or {}
        local across = cell and math.max(cell.col_span, 1) or 1
        local rows_down = cell and cell.row_span or 1
        for k = 0, across - 1 do
          if col + k <= ncols then
            cells[col + k] = pandoc.Cell(k == 0 and contents or {})
            down[col + k] = {left = rows_down - 1, contents = k == 0 and contents or {}}
          end
        end
        col = col + across
      end
    end
    row.cells = cells
  end
end

local function Table(tbl)
  local ncols = #tbl.colspecs
  grid(tbl.head.rows, ncols)
  for _, body in ipairs(tbl.bodies) do grid(body.head, ncols); grid(body.body, ncols) end
  grid(tbl.foot.rows, ncols)
  for i, spec in ipairs(tbl.colspecs) do tbl.colspecs[i] = {spec[1], pandoc.ColWidthDefault} end
  return tbl
end

-- a heading's permalink (Sphinx's and MkDocs' pilcrow) is not the heading's text
-- a footnote's mark ("[4]" in a superscript, linked to the note or back to the text) is its text
-- as the reader sees it, "[4]": gfm has no superscript (pandoc writes "^(\[4\])"), and the link
-- leads to the same page
local function mark(inlines)
  local text = pandoc.utils.stringify(inlines):match("^%s*(%[[^%[%]]+%])%s*$")
  return text and pandoc.Str(text)
end

-- any other superscript pandoc cannot write in Unicode's superscript digits is
-- written "^(...)", which no reader saw: its text, as a reader reads it aloud
local function Superscript(sup)
  local text = pandoc.utils.stringify(sup.content)
  if text:match("^[%d+%-=()]+$") then return nil end
  return mark(sup.content) or sup.content
end

local function Link(link)
  if link.classes:includes("headerlink") then return {} end
  if link.target:sub(1, 1) == "#" then return mark(link.content) end
end

-- an image is its alt text: its address (a data: URI runs to megabytes) is nothing to ask about;
-- an icon's alt text in brackets (DocBook's "[Note]", "[Tip]" beside the note's title) is no text
local function Image(image)
  if pandoc.utils.stringify(image.caption):match("^%[[^%[%]]*%]$") then return {} end
  return image.caption
end

-- a Word or OpenDocument document's title, subtitle, authors, date and abstract are read into
-- metadata, out of the text (of several Title paragraphs pandoc keeps the last): put them back
local function as_blocks(value)
  local kind = pandoc.utils.type(value)
  if kind == "Blocks" then return value end
  if kind == "List" then
    local blocks = pandoc.Blocks({})
    for _, item in ipairs(value) do blocks:extend(as_blocks(item)) end
    return blocks
  end
  if kind == "Inlines" then return pandoc.Blocks({pandoc.Para(value)}) end
  return pandoc.Blocks({pandoc.Para(pandoc.Inlines(pandoc.utils.stringify(value)))})
end

local function Pandoc(doc)
  local input = (PANDOC_STATE.input_files[1] or ""):lower()
  if not (input:match("%.docx$") or input:match("%.odt$")) then return doc end
  local front = pandoc.Blocks({})
  for _, key in ipairs({"title", "subtitle", "author", "date", "abstract"}) do
    local value = doc.meta[key]
    if value then
      local blocks = as_blocks(value)
      if key == "title" and #blocks == 1 and blocks[1].t == "Para" then
        blocks = pandoc.Blocks({pandoc.Header(1, blocks[1].content)})
      end
      front:extend(blocks)
    end
  end
  front:extend(doc.blocks)
  doc.blocks = front
  return doc
end

-- Plain words written as they read. pandoc's gfm writer escapes each character that could be
-- markup anywhere ("Help \> Cheatsheets", "\#debian-mentors", "\[Y/n\]", "\*.pc"), which no reader
-- of the document saw: a word is written as itself, escaped only where ragmeter would read it as
-- something else (reading/markup.py, reading/marks.py): "|" (a table's cell), "`" (code), "</b>"
-- "<br>" (a tag dropped), "[^" and "](" (a note or a link), "[" and "]" in a link's text, "&"
-- of an entity, "~~" (struck out), a backslash before punctuation. A word that opens a line, where
-- "#", ">", "-" or "1." open a block, is left to pandoc. "*" and "_" stay as written: ragmeter
-- reads emphasis marks at a word's edge away either way (marks.without_marks), and a Markdown
-- renderer could read "*a*" in a word as emphasis, which ragmeter never renders.
local VOID = {br = true, hr = true, wbr = true, img = true, input = true, meta = true, link = true,
              source = true, col = true, area = true, embed = true}

local function escapes(c, after, rest, in_link, free_end)
  if c == "\\" then return (after == "" and not free_end) or after:match("%p") ~= nil end
  if c == "|" or c == "`" then return true end
  if c == "<" then return after == "/" or VOID[(rest:match("^(%a+)[%s/>]") or rest:match("^%a+$") or ""):lower()] ~= nil end
  if c == "[" then return in_link or after == "^" end
  if c == "]" then return in_link or after == "(" or after == ":" end
  if c == "&" then return rest:match("^#?%w+;") ~= nil end
  if c == "~" then return after == "~" end
  return false
end

local function written(text, in_link, free_end)
  local out, tag = {}, false
  for i = 1, #text do
    local c = text:sub(i, i)
    local escaped = escapes(c, text:sub(i + 1, i + 1), text:sub(i + 1), in_link, free_end)
    if c == "<" then tag = escaped end
    if c == ">" and tag then escaped, tag = true, false end  -- "</b\\>": no tag to reading/markup.py either
    out[i] = escaped and "\\" .. c or c
  end
  return table.concat(out)
end

-- what opens a block at a line's start: a quote, a table row, a heading's or a list's marker or a
-- rule alone, a fence, a tag, a number and "." or ")" alone
local function opens_block(text)
  return text:match("^[>|]") or text:match("^[#*+%-=_]+$") or text:match("^[`~][`~][`~]")
    or text:match("^<[%a/!?]") or text:match("^%d+[.)]$")
end

local BREAK = "  \n"

local function is_break(el)
  return el.t == "RawInline" and el.text == BREAK
end

local CONTAINERS = {Emph = true, Strong = true, Underline = true, Strikeout = true, SmallCaps = true,
                    Span = true, Quoted = true, Subscript = true, Superscript = true, Link = true}

local EMPHASIS = {Emph = true, Strong = true, Underline = true, Strikeout = true}

-- emphasis around words that end in a backslash is dropped ("**Ctrl-\\**"): the backslash would
-- escape the closing mark, and escaped it reads "\\\\"
local function without_trailing_backslash_emphasis(inlines)
  local out = pandoc.Inlines({})
  for _, el in ipairs(inlines) do
    local last = EMPHASIS[el.t] and el.content[#el.content]
    if last and last.t == "Str" and last.text:sub(-1) == "\\" then out:extend(el.content) else out:insert(el) end
  end
  return out
end

local function plain(inlines, line_start, in_link, heading)
  inlines = without_trailing_backslash_emphasis(inlines)
  for i, el in ipairs(inlines) do
    local at_start = line_start and i == 1 or (i > 1 and is_break(inlines[i - 1]))
    local next = inlines[i + 1]
    local free_end = (next == nil and line_start ~= nil) or (next ~= nil and (next.t == "Space" or next.t == "SoftBreak"
                                                                               or is_break(next)))
    if el.t == "Str" and not (at_start and opens_block(el.text)) and not (heading and el.text:match("^#+$")) then
      inlines[i] = pandoc.RawInline("gfm", written(el.text, in_link, free_end))
    elseif el.t == "LineBreak" then
      inlines[i] = pandoc.RawInline("gfm", BREAK)
    elseif CONTAINERS[el.t] then
      el.content = plain(el.content, nil, in_link or el.t == "Link", heading)
    end
  end
  return inlines
end

-- a line break (<br>) is written as two spaces and a new line, as in the Markdown people write
-- (gfm writes "\" and a new line), never at a paragraph's start or end, and a run of them is one:
-- a paragraph of <br>s alone (spacing on a page) is dropped
local function breaks(inlines)
  local out = pandoc.Inlines({})
  for _, el in ipairs(inlines) do
    local soft = el.t == "Space" or el.t == "SoftBreak"
    if el.t == "LineBreak" then
      while #out > 0 and (out[#out].t == "Space" or out[#out].t == "SoftBreak") do out:remove() end
      if #out > 0 and not is_break(out[#out]) then out:insert(pandoc.RawInline("gfm", BREAK)) end
    elseif not (soft and (#out == 0 or is_break(out[#out]))) then
      out:insert(el)
    end
  end
  while #out > 0 and (is_break(out[#out]) or out[#out].t == "Space" or out[#out].t == "SoftBreak") do
    out:remove()
  end
  return out
end

local function words(block)
  local content = breaks(block.content)
  if #content == 0 then return {} end
  block.content = plain(content, true, false)
  return block
end

local function heading(header)
  header.content = plain(header.content:walk({LineBreak = function() return pandoc.Space() end}), false, false, true)
  return header
end

-- a span (DocBook's <span class="strong"><strong>) is its words: gfm writes no mark for it, and the
-- words before and after it are the words around them
local function Span(span)
  return span.content
end

-- gfm has no definition list: pandoc writes each term and its first definition as one paragraph
-- joined by a line break; a term is its own paragraph, its definitions after it
local function DefinitionList(list)
  local blocks = pandoc.Blocks({})
  for _, item in ipairs(list.content) do
    blocks:insert(pandoc.Para(item[1]))
    for _, definition in ipairs(item[2]) do blocks:extend(definition) end
  end
  return blocks
end

return {
  {Table = Table, DefinitionList = DefinitionList, Span = Span, Superscript = Superscript, Link = Link, Image = Image, Pandoc = Pandoc},
  {Para = words, Plain = words, Header = heading},
}
