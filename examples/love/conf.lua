-- examples/love/conf.lua: LÖVE window and modules for the saspu town example (no audio: it runs headless in CI).
function love.conf(t)
  t.identity = "saspu-town"
  t.version = "11.4"
  t.window.title = "saspu: NPCs planning with TopoPlan"
  t.window.width = 1200
  t.window.height = 470
  t.window.vsync = 1
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
end
