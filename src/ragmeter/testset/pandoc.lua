-- ragmeter's pandoc filter (testset/converters.py): the text a reader of the document needs, written
-- as Markdown the rest of ragmeter reads. A pipe table holds one line a cell and no merged cells,
-- so a table that has them is made a grid first (pandoc writes "[TABLE]" for it, its text lost).

local function one_line(blocks)
  if #blocks == 1 and (blocks[1].t == "Plain" or blocks[1].t == "Para") then
    return {pandoc.Plain(blocks[1].content)}
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

function Table(tbl)
  local ncols = #tbl.colspecs
  grid(tbl.head.rows, ncols)
  for _, body in ipairs(tbl.bodies) do grid(body.head, ncols); grid(body.body, ncols) end
  grid(tbl.foot.rows, ncols)
  for i, spec in ipairs(tbl.colspecs) do tbl.colspecs[i] = {spec[1], pandoc.ColWidthDefault} end
  return tbl
end

-- a heading's permalink (Sphinx's and MkDocs' pilcrow) is not the heading's text
function Link(link)
  if link.classes:includes("headerlink") then return {} end
end

-- an image is its alt text: its address (a data: URI runs to megabytes) is nothing to ask about
function Image(image)
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

function Pandoc(doc)
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
