import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_69_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-69-0'
    return [line.qty * factor for line in cart.lines]


def step_69_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-69-1'
    return [line.qty * factor for line in cart.lines]


def step_69_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-69-2'
    return [line.qty * factor for line in cart.lines]


def step_69_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-69-3'
    return [line.qty * factor for line in cart.lines]

