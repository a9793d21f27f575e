# The HTML report in a real browser: Debian's chromium, headless, renders the page of a failing
# backend merged with a passing one; its DOM must show that the page's script ran, the matrix with
# its numbers, the per-clause table, and the known failing test with the differing elements
# highlighted, collapsed until the matrix's link opens it. Also takes a screenshot.
# Variables: QSPEC, ROOT, WRONG (the wrong_requantize plugin), WORK.
include(${CMAKE_CURRENT_LIST_DIR}/qspec_cli.cmake)

find_program(CHROMIUM NAMES chromium chromium-browser)
if(NOT CHROMIUM)
  message(FATAL_ERROR "chromium not found: install it with `tools/install-deps browser` (./qspec.sh test does)")
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(vectors ${ROOT}/vectors/requantize/gemmlowp.double_round.json)

# The failing backend (also through `run --html`), then a passing one; merged into one page.
qspec_cli(RC 1 OUT wrong_out ARGS --root ${ROOT} run --backend ${WRONG} --vectors ${vectors} --progress never
          --report-json ${WORK}/wrong.json --html ${WORK}/wrong-only.html)
string(REGEX MATCH "FAIL requantize/gemmlowp\\.double_round\\.json tcId ([0-9]+): [0-9]+ of [0-9]+ output elements differ" first "${wrong_out}")
if(NOT first)
  message(FATAL_ERROR "no output-mismatch FAIL in the wrong plugin's run:\n${wrong_out}")
endif()
set(tcid ${CMAKE_MATCH_1})
qspec_cli(RC 0 OUT out ARGS --root ${ROOT} run --backend reference --vectors ${vectors} --progress never --report-json ${WORK}/reference.json)
qspec_cli(RC 0 OUT out ARGS --root ${ROOT} report html ${WORK}/wrong.json ${WORK}/reference.json -o ${WORK}/report.html)
file(READ ${WORK}/wrong-only.html wrong_only)
expect_text("${wrong_only}" "requantize/gemmlowp.double_round.json#${tcid}</span>")

# chromium with exactly these flags and a fresh profile directory per run.
function(chromium out_var)
  string(RANDOM LENGTH 8 tag)
  set(profile ${WORK}/profile-${tag})
  file(MAKE_DIRECTORY ${profile})
  execute_process(COMMAND ${CHROMIUM} --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
                          --disable-component-update --disable-sync --user-data-dir=${profile} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  file(REMOVE_RECURSE ${profile})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "chromium exited ${rc}:\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

chromium(dom --dump-dom file://${WORK}/report.html)
file(WRITE ${WORK}/report.dom.html "${dom}")
expect_text("${dom}"
  "data-qspec-js=\"ready\""                    # the inline script ran to its end
  "<table class=\"matrix\" id=\"matrix\">"
  "data-op=\"requantize\" data-convention=\"gemmlowp.double_round\""
  "title=\"testing.wrong_requantize"           # one bar per backend
  "title=\"reference"
  "<span class=\"name\">requantize/gemmlowp.double_round.json#${tcid}</span>")
# The matrix cell is marked failing, and the failing test's drill-down highlights elements.
string(FIND "${dom}" "data-op=\"requantize\" data-convention=\"gemmlowp.double_round\"" cell_end)
string(SUBSTRING "${dom}" 0 ${cell_end} before_cell)
string(FIND "${before_cell}" "<td class=\"cell" cell_start REVERSE)
math(EXPR cell_len "${cell_end} - ${cell_start}")
string(SUBSTRING "${dom}" ${cell_start} ${cell_len} cell)
expect_text("${cell}" "has-v-FAIL")
string(FIND "${dom}" "<span class=\"name\">requantize/gemmlowp.double_round.json#${tcid}</span>" at)
string(SUBSTRING "${dom}" ${at} -1 rest)
string(FIND "${rest}" "</details>" end)
string(SUBSTRING "${rest}" 0 ${end} drilldown)
expect_text("${drilldown}" "<td class=\"diff\">" "<th>expected</th>" "<th>actual</th>" "elements differ")
message(STATUS "chromium rendered the matrix and the drill-down of tcId ${tcid} with its differing elements highlighted")

# Failures are collapsed by default; the matrix's link (#g0-0: the failing backend's only cell)
# opens the group it points at, through the page's script.
expect_text("${dom}" "<details class=\"group\" id=\"g0-0\"><summary>" "<div class=\"n\">")
chromium(linked --dump-dom "file://${WORK}/report.html#g0-0")
expect_text("${linked}" "<details class=\"group\" id=\"g0-0\" open=\"\"><summary>" "<section id=\"by-clause\">")
message(STATUS "the failing tests are collapsed, and the matrix's link opens their group")

chromium(ignored --screenshot=${WORK}/report.png --window-size=1280,1400 file://${WORK}/report.html)
file(SIZE ${WORK}/report.png png_size)
file(READ ${WORK}/report.png png_magic LIMIT 8 HEX)
if(NOT png_magic STREQUAL "89504e470d0a1a0a" OR png_size LESS 20000)
  message(FATAL_ERROR "the screenshot ${WORK}/report.png is not a plausible PNG (${png_size} bytes, magic ${png_magic})")
endif()
message(STATUS "screenshot: ${WORK}/report.png (${png_size} bytes)")
